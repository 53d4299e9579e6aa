/**
 * Scheduled refresh of the vulnerability corpus from the official feeds
 * (shared/service/corpus/refresh.ts). The stack sets the feed URLs from lib/settings.ts
 * (docs/operations.md "Corpus refresh"): CORPUS_OSV_URLS, comma-separated per-ecosystem
 * all.zip URLs, CORPUS_KEV_URL and CORPUS_EPSS_URL; an empty value turns that source off.
 * All three are required, so a function deployed without them fails its cold start
 * instead of "refreshing" nothing every day.
 */
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import type { CorpusFeeds } from '../../shared/service/corpus/refresh';
import { DispositionBatches } from '../../shared/service/dispositions/disposition-batches';

const url = z.url({ protocol: /^https?$/ });
const feedVariables = z.object({
  CORPUS_OSV_URLS: z.string({ error: 'required: comma-separated OSV all.zip URLs (empty = no OSV refresh)' }),
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
  const osv = parsed.data.CORPUS_OSV_URLS.split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  for (const entry of osv)
    if (!url.safeParse(entry).success)
      throw new Error(`Invalid configuration: CORPUS_OSV_URLS: ${JSON.stringify(entry)} is not an http(s) URL`);
  return { osv, kev: parsed.data.CORPUS_KEV_URL || undefined, epss: parsed.data.CORPUS_EPSS_URL || undefined };
}

// Read at cold start: a missing variable fails the deployment's first run, not silently every run.
const feeds = feedsFromEnvironment(process.env);

/** Left of the invocation when the re-evaluation stops taking new SBOMs: what remains waits for the next run. */
const REEVALUATION_MARGIN_MS = 60_000;

export async function handler(
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + (context?.getRemainingTimeInMillis() ?? 900_000) - REEVALUATION_MARGIN_MS;
  // The refresh code (feed parsers, CVSS calculator: ~300 KB) loads during the sweep's table reads, not at cold start.
  const refresh = import('../../shared/service/corpus/refresh');
  // Awaited below, where a failure surfaces; this keeps it from being unhandled if the sweep throws first.
  refresh.catch(() => undefined);
  // The scheduled sweep for disposition batches a crashed or timed-out Lambda left pending (reads of their releases finish them sooner).
  const dispositionBatches = await DispositionBatches.recoverPending();
  const refreshed = await (await refresh).refreshCorpus(feeds);
  // Every watched SBOM a change names follows the corpus now; changes an earlier run left are applied too.
  const { applyCorpusChanges } = await import('../../shared/service/watch/watch');
  return { dispositionBatches, ...refreshed, reevaluation: await applyCorpusChanges({ deadline }) };
}
