/**
 * Findings as the client reads them: every page of GET /api/sboms/{id}/vulnerabilities or
 * GET /api/releases/{id}/vulnerabilities, each item checked against the API's own item schema at the
 * edge, so a change in the answer's shape is a service error, not a wrong gate.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type * as z from 'zod';
import { releaseVulnerabilitySchema, sbomVulnerabilitySchema } from '../service/schemas/sboms';
import { ok, type ApiClient } from './api-client';
import type { Finding, ListQuery, Sbom } from './api-types';
import { ServiceError } from './errors';

export type { Finding, ListQuery };

/** Most severe first, as the counts and the job summary list them. */
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE'] as const satisfies readonly Severity[];
export type Severity = Finding['severity'];

export type Target = { sbomId: string } | { releaseId: string };

export type Decision = 'undecided' | NonNullable<Finding['disposition']>['status'];
export const DECISIONS = [
  'undecided',
  'affected',
  'under_investigation',
  'not_affected',
  'fixed',
] as const satisfies readonly Decision[];

/**
 * The decision that counts (docs/triage-continuity.md): an expired or review-required decision
 * counts as none, as the service's own `effectiveStatus` has it; the list item carries the state.
 */
export function decisionOf(finding: Finding): Decision {
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

/** Waits until the SBOM's scan completed ("analysis done"); a failed scan or the deadline is a ServiceError. */
export async function waitForScan(api: ApiClient, sbomId: string, options: WaitOptions): Promise<Sbom> {
  const deadline = Date.now() + options.timeoutMs;
  let reported = '';
  for (const delay of pollDelays()) {
    const { body } = await ok(api.GET('/api/sboms/{id}', { params: { path: { id: sbomId } } }));
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

/** One page of the target's vulnerability list, with the filters of `query` (which all must match). */
async function readList(api: ApiClient, target: Target, query: ListQuery) {
  const answer =
    'sbomId' in target
      ? await ok(api.GET('/api/sboms/{id}/vulnerabilities', { params: { path: { id: target.sbomId }, query } }))
      : await ok(
          api.GET('/api/releases/{releaseId}/vulnerabilities', {
            params: { path: { releaseId: target.releaseId }, query },
          }),
        );
  return answer.body;
}

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
function parseListItem(schema: z.ZodType<Finding>, raw: unknown): Finding {
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ServiceError(
      `the service answered a vulnerability this client does not understand: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/** Pages of the lists are read at the largest size the service allows. */
const PER_PAGE = 500;

/** Every finding of an SBOM or a release that matches `query`, in the list's default order. */
export async function loadFindings(
  api: ApiClient,
  target: Target,
  options: WaitOptions,
  query: ListQuery = {},
): Promise<Finding[]> {
  const schema = 'sbomId' in target ? sbomVulnerabilitySchema : releaseVulnerabilitySchema;
  return whenScanned(async () => {
    const items: Finding[] = [];
    for (let page = 1; ; page += 1) {
      const { data, meta } = await readList(api, target, { ...query, page, perPage: PER_PAGE });
      for (const raw of data) items.push(parseListItem(schema, raw));
      if (!meta.hasNextPage) return items;
    }
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
        const query: ListQuery = row === 'KEV' ? { kev: 'true' } : { severity: row.toLowerCase() };
        return (await readList(api, target, { ...query, perPage: 1 })).summary;
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
