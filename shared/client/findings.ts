/**
 * Findings as the client reads them: every page of GET /api/sboms/{id}/vulnerabilities or
 * GET /api/releases/{id}/vulnerabilities, items kept whole (the SARIF converter reads more
 * fields than the gate does), with the few fields the client decides on checked at the edge.
 */
import * as z from 'zod';
import { sleep, type ApiClient } from './api-client';
import { ServiceError } from './errors';
import type { FindingSummary } from '../service/schemas/sboms';

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The parts of a vulnerability list item the gate, the counts and the tables read (docs/api.md "Vulnerability list"). */
export const findingItem = z.looseObject({
  id: z.string(),
  cve_id: z.string(),
  advisory_id: z.string(),
  component_name: z.string(),
  component_version: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  severity_source: z.string().nullable(),
  epss_score: z.number().nullable(),
  is_kev: z.boolean(),
  fixed_versions: z.array(z.string()),
  disposition: z
    .looseObject({
      status: z.enum(['affected', 'not_affected', 'fixed', 'under_investigation']),
      decision_state: z.enum(['none', 'decided', 'carried', 'expired', 'review_required']),
      justification: z.string().nullable().optional(),
    })
    .optional(),
});
export type FindingItem = z.infer<typeof findingItem>;

export type Target = { sbomId: string } | { releaseId: string };

export const DECISIONS = ['undecided', 'affected', 'under_investigation', 'not_affected', 'fixed'] as const;
export type Decision = (typeof DECISIONS)[number];

/**
 * The decision that counts (docs/triage-continuity.md): an expired or review-required decision
 * counts as none, as the service's own `effectiveStatus` has it; the list item carries the state.
 */
export function decisionOf(finding: FindingItem): Decision {
  const disposition = finding.disposition;
  if (!disposition || (disposition.decision_state !== 'decided' && disposition.decision_state !== 'carried'))
    return 'undecided';
  return disposition.status;
}

export interface WaitOptions {
  timeoutMs: number;
  progress: (message: string) => void;
}

/**
 * Polling backs off from 200 ms to 1 s: a small SBOM's scan is done in well under a second, and
 * a CI job waits at most a second longer than the scan (a status read is one cheap GET).
 */
function* pollDelays(): Generator<number> {
  let delay = 200;
  for (;;) {
    yield delay;
    delay = Math.min(1000, Math.round(delay * 1.5));
  }
}

export interface SbomView {
  id: string;
  releaseId: string;
  component_count: number;
  file_name: string | null;
  scan: { status: 'queued' | 'running' | 'completed' | 'failed'; finding_count: number; error?: string };
}

/** Waits until the SBOM's scan completed ("analysis done"); a failed scan or the deadline is a ServiceError. */
export async function waitForScan(api: ApiClient, sbomId: string, options: WaitOptions): Promise<SbomView> {
  const deadline = Date.now() + options.timeoutMs;
  let reported = '';
  for (const delay of pollDelays()) {
    const { body } = await api.get<{ data: SbomView }>(`/api/sboms/${encodeURIComponent(sbomId)}`);
    const { scan } = body.data;
    if (scan.status === 'completed') return body.data;
    if (scan.status === 'failed')
      throw new ServiceError(`the scan of SBOM ${sbomId} failed: ${scan.error ?? 'no reason given'}`);
    if (scan.status !== reported) options.progress(`scan ${scan.status}…`);
    reported = scan.status;
    if (Date.now() + delay > deadline)
      throw new ServiceError(
        `the scan of SBOM ${sbomId} did not complete within ${Math.round(options.timeoutMs / 1000)} s (still ${scan.status})`,
      );
    await sleep(delay);
  }
  throw new ServiceError('unreachable');
}

function listPath(target: Target): string {
  return 'sbomId' in target
    ? `/api/sboms/${encodeURIComponent(target.sbomId)}/vulnerabilities`
    : `/api/releases/${encodeURIComponent(target.releaseId)}/vulnerabilities`;
}

/** A vulnerability list query (docs/api.md "Both vulnerability lists"): filters that all must match. */
export type ListQuery = Partial<Record<'severity' | 'status' | 'kev' | 'fixable' | 'epssMin', string | number>>;

/**
 * Runs a read of a vulnerability list; one that answers 409 `scan_pending` (a scan not completed
 * yet: "not scanned" must not read as "no findings") is waited for and run again.
 */
async function whenScanned<T>(read: () => Promise<T>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const delays = pollDelays();
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'scan_pending') throw error;
      const delay = delays.next().value as number;
      if (Date.now() + delay > deadline)
        throw new ServiceError(
          `scans did not complete within ${Math.round(options.timeoutMs / 1000)} s: ${error.message}`,
        );
      options.progress('waiting for the scan to complete…');
      await sleep(delay);
    }
  }
}

/** A list item checked against `schema`: a change in the answer's shape is a service error, not a wrong gate. */
export function parseListItem<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ServiceError(
      `the service answered a vulnerability this client does not understand: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/** Every finding of an SBOM or a release that matches `query`, in the list's default order. */
export async function loadFindings(
  api: ApiClient,
  target: Target,
  options: WaitOptions,
  query: ListQuery = {},
): Promise<FindingItem[]> {
  return whenScanned(async () => {
    const items: FindingItem[] = [];
    for await (const page of api.pages<unknown>(listPath(target), query)) {
      for (const raw of page) items.push(parseListItem(findingItem, raw));
    }
    return items;
  }, options);
}

export type Counts = Record<Severity | 'KEV', Record<Decision | 'total', number>> & { total: number };

/**
 * Counts by severity × decision, with known-exploited findings as a row of their own, from the
 * lists' `summary` (which counts by the decision that counts): one page-of-one request per row,
 * so the counts of thousands of findings cost six small answers, not every row.
 */
export async function fetchCounts(api: ApiClient, target: Target, options: WaitOptions): Promise<Counts> {
  const rows = ['KEV', ...SEVERITIES] as const;
  const summaries = await Promise.all(
    rows.map((row) =>
      whenScanned(async () => {
        const query = row === 'KEV' ? { kev: 'true' } : { severity: row.toLowerCase() };
        return (await api.get<{ summary: FindingSummary }>(listPath(target), { query: { ...query, perPage: 1 } })).body
          .summary;
      }, options),
    ),
  );
  const counts = { total: 0 } as Counts;
  rows.forEach((row, index) => {
    const summary = summaries[index]!; // one summary per row
    counts[row] = {
      undecided: summary.withoutDisposition,
      affected: summary.affected,
      under_investigation: summary.underInvestigation,
      not_affected: summary.notAffected,
      fixed: summary.fixed,
      total: summary.total,
    };
    if (row !== 'KEV') counts.total += summary.total;
  });
  return counts;
}

/** The `findings` of `upload --json` and the Action's outputs: counts a script can branch on. */
export function findingTotals(counts: Counts) {
  return {
    total: counts.total,
    critical: counts.CRITICAL.total,
    high: counts.HIGH.total,
    medium: counts.MEDIUM.total,
    low: counts.LOW.total,
    none: counts.NONE.total,
    kev: counts.KEV.total,
    untriaged: SEVERITIES.reduce((sum, severity) => sum + counts[severity].undecided, 0),
  };
}
