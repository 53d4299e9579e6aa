/**
 * Format-independent preparation: validates the input, resolves one canonical id per
 * vulnerability, collapses duplicate findings of the same (vulnerability, component) and
 * sorts everything, so that the three generators publish the same statements in the
 * same order and identical input gives identical bytes.
 */
import {
  vexGenerationInputSchema,
  type DispositionResponse,
  type DispositionStatus,
  type Justification,
  type VexComponent,
  type VexCvss,
  type VexFinding,
  type VexGenerationInput,
} from '../model';
import { normalizeCvssV2, normalizeCvssV3, normalizeCvssV4, type NormalizedCvss } from './cvss';
import { VexGenerationError } from './errors';
import { isCveId } from '../../matching/cve-id';
import { cleanText, compareText, componentLabel, uniqueSorted } from './util';

/** One assertion: a vulnerability's status for one component of the release. */
export interface PreparedStatement {
  vulnId: string;
  component: VexComponent;
  /** Sorted ids of every finding collapsed into this statement. */
  findingIds: string[];
  status: DispositionStatus;
  /** False when no disposition exists yet (published as under investigation). */
  triaged: boolean;
  justification: Justification | null;
  response: DispositionResponse | null;
  detail: string | null;
  impactStatement: string | null;
  /** The user's action statement, or a default text derived from the response. */
  actionStatement: string;
  /** True when `actionStatement` is the generated default. */
  actionStatementIsDefault: boolean;
  updatedAt: string | null;
  fixedVersions: string[];
}

/** Vulnerability-level data, merged over all findings that share the canonical id. */
export interface PreparedVulnerability {
  id: string;
  /** Every other known id (CVE, advisory ids, aliases), sorted, without `id`. */
  aliases: string[];
  summary: string | null;
  /** `CWE-<n>` ids, numeric order. */
  cwes: string[];
  cvssV2: NormalizedCvss | null;
  cvssV3: NormalizedCvss | null;
  cvssV4: NormalizedCvss | null;
  epss: { score: number; percentile: number } | null;
  isKev: boolean;
  statements: PreparedStatement[];
}

export interface PreparedVex {
  input: VexGenerationInput;
  vulnerabilities: PreparedVulnerability[];
  /** Components referenced by at least one statement, sorted by name, version, ref. */
  components: VexComponent[];
  /** `createdAt ?? generatedAt`. */
  firstIssuedAt: string;
}

/** When duplicates disagree, the least reassuring status wins (never hide an "affected"). */
export const STATUS_PRECEDENCE: Readonly<Record<DispositionStatus, number>> = {
  affected: 4,
  under_investigation: 3,
  fixed: 2,
  not_affected: 1,
};

function canonicalVulnId(f: VexFinding): string {
  const cve = cleanText(f.cveId);
  if (cve !== null && isCveId(cve)) return cve;
  // A single CVE among the aliases is the id scanners key on.
  const aliasCves = uniqueSorted(f.aliases.map((a) => a.trim()).filter(isCveId));
  if (aliasCves.length === 1 && aliasCves[0] !== undefined) return aliasCves[0];
  // The model refine guarantees one of the two.
  return cve ?? cleanText(f.advisoryId) ?? f.id;
}

function compareComponents(a: VexComponent, b: VexComponent): number {
  return compareText(a.name, b.name) || compareText(a.version ?? '', b.version ?? '') || compareText(a.ref, b.ref);
}

function defaultActionStatement(
  response: DispositionResponse | null,
  component: VexComponent,
  fixedVersions: string[],
  input: VexGenerationInput,
): string {
  const product = `${input.product.name} ${input.release.version}`;
  const comp = componentLabel(component);
  switch (response) {
    case 'update':
      return fixedVersions.length > 0
        ? `Update to a release of ${input.product.name} that includes a fixed version of ${component.name} (fixed in ${fixedVersions.join(', ')}).`
        : `Update to a release of ${input.product.name} that includes a fixed version of ${component.name}.`;
    case 'rollback':
      return `Roll back to an earlier release of ${input.product.name} that does not include the vulnerable ${comp}.`;
    case 'workaround_available':
      return `A workaround is available for ${product}; contact ${input.document.publisherName} for instructions.`;
    case 'will_not_fix':
      return `${input.document.publisherName} will not fix this vulnerability in ${product}.`;
    case 'can_not_fix':
      return `${input.document.publisherName} cannot fix this vulnerability in ${product}; no fix is available.`;
    case null:
      return `No remediation is available yet for ${product}.`;
  }
}

function representative(findings: VexFinding[]): VexFinding {
  if (findings.length === 1) return findings[0]!;
  // Deterministic choice: highest status precedence, then latest update, then smallest id.
  const sorted = [...findings].sort((a, b) => {
    const sa = STATUS_PRECEDENCE[a.disposition?.status ?? 'under_investigation'];
    const sb = STATUS_PRECEDENCE[b.disposition?.status ?? 'under_investigation'];
    if (sa !== sb) return sb - sa;
    const ta = a.disposition === null ? -Infinity : Date.parse(a.disposition.updatedAt);
    const tb = b.disposition === null ? -Infinity : Date.parse(b.disposition.updatedAt);
    if (ta !== tb) return tb > ta ? 1 : -1;
    return compareText(a.id, b.id);
  });
  return sorted[0]!; // callers pass non-empty groups
}

function firstNonNull<T>(values: Array<T | null>): T | null {
  for (const v of values) if (v !== null) return v;
  return null;
}

function cweNumber(id: string): number | null {
  const m = /^CWE-([1-9][0-9]*)$/i.exec(id.trim());
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** Validates and normalises generator input. Throws VexGenerationError (422). */
export function prepareVex(rawInput: VexGenerationInput): PreparedVex {
  const parsed = vexGenerationInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    throw new VexGenerationError(
      'vex_invalid_input',
      'VEX generation input is invalid',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code })),
    );
  }
  const input = parsed.data;

  const componentsByRef = new Map<string, VexComponent>();
  for (const c of input.components) {
    if (!componentsByRef.has(c.ref)) componentsByRef.set(c.ref, c);
  }

  // vulnId -> componentRef -> findings
  const groups = new Map<string, Map<string, VexFinding[]>>();
  for (const f of input.findings) {
    if (!componentsByRef.has(f.componentRef)) {
      throw new VexGenerationError(
        'vex_unknown_component',
        `finding ${f.id} references unknown component ${f.componentRef}`,
        [{ path: 'findings', message: `unknown componentRef ${f.componentRef}` }],
      );
    }
    const vulnId = canonicalVulnId(f);
    let byComponent = groups.get(vulnId);
    if (byComponent === undefined) groups.set(vulnId, (byComponent = new Map<string, VexFinding[]>()));
    const list = byComponent.get(f.componentRef);
    if (list === undefined) byComponent.set(f.componentRef, [f]);
    else list.push(f);
  }

  const usedComponents = new Map<string, VexComponent>();
  const cvssCache = new Map<string, NormalizedCvss>();
  const vulnerabilities: PreparedVulnerability[] = [];
  for (const [vulnId, byComponent] of groups) {
    const all = [...byComponent.values()].flat().sort((a, b) => compareText(a.id, b.id));
    const statements: PreparedStatement[] = [];
    for (const [ref, findings] of byComponent) {
      const component = componentsByRef.get(ref)!; // checked above
      usedComponents.set(ref, component);
      const rep = representative(findings);
      const d = rep.disposition;
      const status: DispositionStatus = d?.status ?? 'under_investigation';
      const fixedVersions = uniqueSorted(
        findings.flatMap((f) => f.fixedVersions.map((v) => v.trim()).filter((v) => v !== '')),
      );
      const response = d?.response ?? null;
      const userAction = cleanText(d?.actionStatement);
      statements.push({
        vulnId,
        component,
        findingIds: uniqueSorted(findings.map((f) => f.id)),
        status,
        triaged: d !== null,
        // A justification only qualifies not_affected; a response only matters where a fix is discussed.
        justification: status === 'not_affected' ? (d?.justification ?? null) : null,
        response,
        detail: cleanText(d?.detail),
        impactStatement: cleanText(d?.impactStatement),
        actionStatement: userAction ?? defaultActionStatement(response, component, fixedVersions, input),
        actionStatementIsDefault: userAction === null,
        updatedAt: d?.updatedAt ?? null,
        fixedVersions,
      });
    }
    statements.sort((a, b) => compareComponents(a.component, b.component));

    const ids = new Set<string>();
    for (const f of all) {
      for (const id of [f.cveId, f.advisoryId, ...f.aliases]) {
        const t = cleanText(id);
        if (t !== null && t !== vulnId) ids.add(t);
      }
    }
    const cweIds = uniqueSorted(
      all.flatMap((f) => f.cwes.map((c) => c.trim().toUpperCase())).filter((c) => cweNumber(c) !== null),
    );
    const epss = all
      .map((f) => f.epss)
      .filter((e): e is NonNullable<typeof e> => e !== null)
      .sort((a, b) => b.score - a.score || b.percentile - a.percentile)[0];
    const v2 = firstNonNull(all.map((f) => f.cvssV2));
    const v3 = firstNonNull(all.map((f) => f.cvssV3));
    const v4 = firstNonNull(all.map((f) => f.cvssV4));
    const cvss = (kind: string, raw: VexCvss, normalize: (c: VexCvss) => NormalizedCvss): NormalizedCvss => {
      // Releases repeat the same few hundred vectors; parse each once per generation.
      const key = `${kind}\n${raw.vector}\n${raw.score}`;
      let n = cvssCache.get(key);
      if (n === undefined) cvssCache.set(key, (n = normalize(raw)));
      return n;
    };
    vulnerabilities.push({
      id: vulnId,
      aliases: uniqueSorted(ids),
      summary: firstNonNull(all.map((f) => cleanText(f.summary))),
      cwes: cweIds,
      cvssV2: v2 === null ? null : cvss('2', v2, normalizeCvssV2),
      cvssV3: v3 === null ? null : cvss('3', v3, normalizeCvssV3),
      cvssV4: v4 === null ? null : cvss('4', v4, normalizeCvssV4),
      epss: epss ?? null,
      isKev: all.some((f) => f.isKev),
      statements,
    });
  }
  vulnerabilities.sort((a, b) => compareText(a.id, b.id));

  return {
    input,
    vulnerabilities,
    components: [...usedComponents.values()].sort(compareComponents),
    firstIssuedAt: input.document.createdAt ?? input.document.generatedAt,
  };
}

/** Numeric part of a `CWE-<n>` id. */
export function cweIdNumber(id: string): number {
  return cweNumber(id) ?? 0;
}

/**
 * Groups a vulnerability's statements that make the same assertion (same `key`), keeping
 * the component order; used where one document entry may cover several components.
 */
export function groupStatements(
  statements: PreparedStatement[],
  key: (s: PreparedStatement) => string,
): PreparedStatement[][] {
  // Most vulnerabilities of a release affect one component: no key to compute (a JSON text per statement in CycloneDX).
  if (statements.length <= 1) return statements.length === 0 ? [] : [statements];
  const groups = new Map<string, PreparedStatement[]>();
  for (const s of statements) {
    const k = key(s);
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [s]);
    else g.push(s);
  }
  return [...groups.values()];
}

/** Latest `updatedAt` of the statements, or null when none was triaged. */
export function latestUpdate(statements: PreparedStatement[]): string | null {
  let best: string | null = null;
  for (const s of statements) {
    if (s.updatedAt !== null && (best === null || Date.parse(s.updatedAt) > Date.parse(best))) best = s.updatedAt;
  }
  return best;
}
