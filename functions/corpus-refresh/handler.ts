/**
 * Scheduled refresh of the vulnerability corpus from the official feeds
 * (shared/service/corpus/refresh.ts). The stack sets the feeds from lib/settings.ts
 * (docs/operations.md "Corpus refresh"): CORPUS_OSV_BASE_URL (OSV's export bucket or a mirror
 * with its layout), CORPUS_OSV_ECOSYSTEMS (comma-separated, as OSV spells them; empty = no OSV
 * refresh), CORPUS_KEV_URL and CORPUS_EPSS_URL (empty = that source off). All four are required,
 * so a function deployed without them fails its cold start instead of "refreshing" nothing every hour.
 */
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import type { CorpusFeeds } from '../../shared/service/corpus/refresh';
import { DispositionBatches } from '../../shared/service/dispositions/disposition-batches';
import { ECOSYSTEMS } from '../../shared/service/matching/ecosystems';
import { IMPORT_BUDGET_MS } from '../../shared/service/corpus/import-units';

const url = z.url({ protocol: /^https?$/ });
const feedVariables = z.object({
  CORPUS_OSV_BASE_URL: z.url({
    protocol: /^https?$/,
    error: "required: the http(s) URL of OSV's export bucket, e.g. https://osv-vulnerabilities.storage.googleapis.com",
  }),
  CORPUS_OSV_ECOSYSTEMS: z.string({
    error: 'required: comma-separated OSV ecosystems (empty = no OSV refresh)',
  }),
  CORPUS_KEV_URL: z.union([z.literal(''), url], { error: 'required: the CISA KEV JSON URL (empty = no KEV refresh)' }),
  CORPUS_EPSS_URL: z.union([z.literal(''), url], {
    error: 'required: the EPSS CSV(.gz) URL (empty = no EPSS refresh)',
  }),
});

export function feedsFromEnvironment(environment: NodeJS.ProcessEnv): CorpusFeeds {
  const parsed = feedVariables.safeParse(environment);
  if (!parsed.success)
    throw new Error(
      `Invalid configuration: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const ecosystems = [
    ...new Set(
      parsed.data.CORPUS_OSV_ECOSYSTEMS.split(',')
        .map((value) => value.trim())
        .filter(Boolean),
    ),
  ];
  const supported: readonly string[] = ECOSYSTEMS;
  for (const ecosystem of ecosystems)
    if (!supported.includes(ecosystem))
      throw new Error(
        `Invalid configuration: CORPUS_OSV_ECOSYSTEMS: ${JSON.stringify(ecosystem)} is not an ecosystem the matcher supports (${ECOSYSTEMS.join(', ')})`,
      );
  return {
    osv: { baseUrl: parsed.data.CORPUS_OSV_BASE_URL, ecosystems },
    kev: parsed.data.CORPUS_KEV_URL || undefined,
    epss: parsed.data.CORPUS_EPSS_URL || undefined,
  };
}

// Read at cold start: a missing variable fails the deployment's first run, not silently every run.
const feeds = feedsFromEnvironment(process.env);

/** Left of the invocation when the re-evaluation stops taking new SBOMs: what remains waits for the next run. */
const REEVALUATION_MARGIN_MS = 60_000;

/** The continuation schedule's event: only archive imports under way go on. */
const continuationEvent = z.object({ continuation: z.literal(true) });

export async function handler(
  event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const deadline = started + (context?.getRemainingTimeInMillis() ?? 300_000) - REEVALUATION_MARGIN_MS;
  const continuationOnly = continuationEvent.safeParse(event).success;
  // The refresh code (feed parsers, CVSS calculator: ~300 KB) loads during the sweep's table reads, not at cold start.
  const refresh = import('../../shared/service/corpus/refresh');
  // Awaited below, where a failure surfaces; this keeps it from being unhandled if the sweep throws first.
  refresh.catch(() => undefined);
  // The scheduled sweep for disposition batches a crashed or timed-out Lambda left pending (reads of their releases finish them sooner).
  const dispositionBatches = await DispositionBatches.recoverPending();
  const refreshing = (await refresh).refreshCorpus(feeds, {
    workDeadline: Math.min(started + IMPORT_BUDGET_MS, deadline),
    continuationOnly,
  });
  const refreshed = await refreshing.catch(() => undefined);
  // Every watched SBOM a change names follows the corpus now, whether or not another feed failed (what the
  // feeds that succeeded imported is recorded); changes an earlier run left are applied too.
  const { applyCorpusChanges } = await import('../../shared/service/watch/watch');
  const reevaluation = await applyCorpusChanges({ deadline });
  if (refreshed === undefined) await refreshing; // the refresh's own error: the run counts as failed and retries
  return { dispositionBatches, ...refreshed, reevaluation };
}
