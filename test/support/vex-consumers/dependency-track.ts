/**
 * Dependency-Track's CycloneDX VEX import (DependencyTrack/dependency-track CycloneDXVexImporter.java;
 * cyclonedx-core-java ObjectLocator).
 */
import { arr, obj, str, type Json } from './common';
import { parseBomLink } from './trivy-cyclonedx';

/** Vulnerability.Source enum of Dependency-Track (model/Vulnerability.java). */
const DT_SOURCES = new Set(['NVD', 'NPM', 'GITHUB', 'VULNDB', 'OSSINDEX', 'RETIREJS', 'INTERNAL', 'OSV']);

export interface DtProjectFinding {
  source: string;
  vulnId: string;
  component: { purl: string; name: string; version: string };
}

/**
 * `CycloneDXVexImporter.applyVex`: entries need id, a known source, affects and an analysis; the
 * vulnerability is looked up by (source name, id) among the project's findings; each affect ref is
 * located inside the VEX by exact bom-ref (`ObjectLocator`: metadata.component, then components,
 * recursively). A located component applies to the project components with its identity (here:
 * purl, the ComponentIdentity field Dependency-Track matches first); the metadata component, or a
 * BOM-Link that is not located, applies to EVERY component of the project with that vulnerability.
 * Returns `vulnId component-purl → analysis state` for every analysis the import writes.
 */
export function dependencyTrackApplyVex(vex: unknown, project: DtProjectFinding[]): Map<string, string> {
  const applied = new Map<string, string>();
  const bom = obj(vex);
  const locate = (ref: string): { kind: 'metadata' | 'component'; purl?: string } | null => {
    const metadataComponent = obj(obj(bom.metadata).component);
    if (metadataComponent['bom-ref'] === ref) return { kind: 'metadata' };
    const find = (list: unknown): Json | undefined => {
      for (const c of arr(list).map(obj)) {
        if (c['bom-ref'] === ref) return c;
        const child = find(c.components);
        if (child) return child;
      }
      return undefined;
    };
    const c = find(bom.components);
    return c ? { kind: 'component', ...(typeof c.purl === 'string' ? { purl: c.purl } : {}) } : null;
  };
  for (const v of arr(bom.vulnerabilities).map(obj)) {
    const source = str(obj(v.source).name);
    if (!str(v.id) || !source || !DT_SOURCES.has(source) || arr(v.affects).length === 0 || v.analysis === undefined)
      continue;
    const findings = project.filter((f) => f.source === source && f.vulnId === v.id);
    if (findings.length === 0) continue; // "the project is not affected by it"
    const state = String(obj(v.analysis).state);
    for (const affect of arr(v.affects).map(obj)) {
      const ref = str(affect.ref) ?? '';
      const located = locate(ref);
      const targets =
        located?.kind === 'metadata' || (located === null && parseBomLink(ref) !== null)
          ? findings
          : located?.kind === 'component'
            ? findings.filter((f) => located.purl !== undefined && f.component.purl === located.purl)
            : [];
      for (const f of targets) applied.set(`${String(v.id)} ${f.component.purl}`, state);
    }
  }
  return applied;
}
