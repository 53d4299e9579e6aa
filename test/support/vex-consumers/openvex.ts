/** go-vex matching (openvex/go-vex pkg/vex/functions_documents.go, vex.go), as Trivy and Grype use it for OpenVEX. */
import { PackageURL } from 'packageurl-js';
import { arr, obj, parsePurl, qualifiers, str, type Detected, type Json } from './common';

/** go-vex `PurlMatches(purl1, purl2)`: purl1 is the general side (no version = any; its qualifiers must all be in purl2). */
export function purlMatches(general: string, specific: string): boolean {
  const p1 = parsePurl(general);
  const p2 = parsePurl(specific);
  if (p1 === null || p2 === null) return false;
  if (p1.type !== p2.type || (p1.namespace ?? '') !== (p2.namespace ?? '') || p1.name !== p2.name) return false;
  const v1 = p1.version ?? '';
  const v2 = p2.version ?? '';
  if (v1 !== '' && v2 === '') return false;
  if (v1 !== v2 && v1 !== '' && v2 !== '') return false;
  const q2 = qualifiers(p2);
  return Object.entries(qualifiers(p1)).every(([k, v]) => q2[k] === v);
}

/** go-vex `Component.Matches`: `@id` exactly (or as a purl), an identifier exactly or as a purl, or a hash value. */
export function componentMatches(component: unknown, identifier: string): boolean {
  const c = obj(component);
  const id = str(c['@id']) ?? '';
  if (id !== '' && id === identifier) return true;
  if (id.startsWith('pkg:') && purlMatches(id, identifier)) return true;
  for (const [type, value] of Object.entries(obj(c.identifiers))) {
    if (value === identifier) return true;
    if (type === 'purl' && identifier.startsWith('pkg:') && typeof value === 'string' && purlMatches(value, identifier))
      return true;
  }
  return Object.values(obj(c.hashes)).some((hash) => hash === identifier);
}

/** go-vex `Statement.Matches(vuln, product, subcomponents)` with `Product.Matches` and `Vulnerability.Matches` (name or alias). */
function statementMatches(statement: Json, vuln: string, product: string, subcomponents: string[]): boolean {
  const v = obj(statement.vulnerability);
  if (v.name !== vuln && !arr(v.aliases).includes(vuln)) return false;
  for (const p of arr(statement.products).map(obj)) {
    const productMatches = (sub: string): boolean =>
      componentMatches(p, product) && (sub === '' || arr(p.subcomponents).some((s) => componentMatches(s, sub)));
    if (subcomponents.length === 0 ? productMatches('') : subcomponents.some(productMatches)) return true;
  }
  return false;
}

/** go-vex `VEX.Matches`: matching statements, oldest first (SortStatements by timestamp; callers take the last). */
export function openVexMatches(vex: unknown, vuln: string, product: string, subcomponents: string[]): Json[] {
  const matches = arr(obj(vex).statements)
    .map(obj)
    .filter((s) => statementMatches(s, vuln, product, subcomponents));
  return matches.sort((a, b) => Date.parse(str(a.timestamp) ?? '') - Date.parse(str(b.timestamp) ?? ''));
}

/**
 * Trivy `OpenVEX.NotAffected` through `filterVulnerabilities`/`reachRoot` (pkg/vex/openvex.go, vex.go):
 * first the package itself as product with no subcomponent, then the root (the scanned artifact,
 * its purl) with the package as subcomponent (Trivy passes `[""]` when there is none). The last
 * matching statement decides; not_affected / fixed hide the finding.
 */
export function trivyOpenVex(vex: unknown, rootPurl: string, pkg: Detected): string | null {
  for (const [product, sub] of [
    [pkg.purl, ''],
    [rootPurl, pkg.purl],
  ] as const) {
    const statements = openVexMatches(vex, pkg.vulnerabilityId, product, [sub]);
    const last = statements.at(-1);
    if (last !== undefined && (last.status === 'not_affected' || last.status === 'fixed')) return String(last.status);
  }
  return null;
}

/**
 * openvex/discovery `GenerateReferenceIdentifiers` for an image reference given by digest: the
 * digest as a bare hash, and two `pkg:oci` purls with `repository_url` built the way that code
 * builds it (registry + repository path with the image name cut out + image name), one plain and
 * one with tag/os/arch qualifiers. Grype's product identifiers for `grype <image>`.
 */
export function grypeImageIdentifiers(reference: {
  registry: string;
  repository: string;
  digest: string;
  tag?: string;
  os?: string;
  arch?: string;
}): string[] {
  const parts = reference.repository.split('/');
  const imageName = parts[parts.length - 1]!;
  const registryPath = `${reference.registry}/${reference.repository.split(imageName).join('')}`;
  const base: Record<string, string> = { repository_url: registryPath + imageName };
  const full: Record<string, string> = {
    ...base,
    ...(reference.tag ? { tag: reference.tag } : {}),
    ...(reference.os ? { os: reference.os } : {}),
    ...(reference.arch ? { arch: reference.arch } : {}),
  };
  return [
    new PackageURL('oci', null, imageName, reference.digest, base, null).toString(),
    new PackageURL('oci', null, imageName, reference.digest, full, null).toString(),
    reference.digest.replace(/^sha256:/, ''),
  ];
}

/**
 * Grype `openvex.Processor.FilterMatches` (grype/vex/openvex/implementation.go): for each product
 * identifier of the scanned image, `doc.Matches(vuln, product, [package purl])`; the first match
 * decides; not_affected / fixed move the match to the ignored list (default VEX ignore rules).
 */
export function grypeOpenVex(vex: unknown, productIdentifiers: string[], pkg: Detected): string | null {
  for (const product of productIdentifiers) {
    const statements = openVexMatches(vex, pkg.vulnerabilityId, product, [pkg.purl]);
    const first = statements[0];
    if (first !== undefined)
      return first.status === 'not_affected' || first.status === 'fixed' ? String(first.status) : null;
  }
  return null;
}
