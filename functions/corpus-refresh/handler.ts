/**
 * Scheduled refresh of the vulnerability corpus from the official feeds. The
 * URLs are configuration (CORPUS_OSV_URLS comma-separated per-ecosystem
 * all.zip, CORPUS_KEV_URL, CORPUS_EPSS_URL); re-imports only write what changed.
 * Never called by tests: they import files.
 */
import * as z from 'zod';
import { importAdvisories, importEpss, importKev } from '../../shared/corpus/import';
import { readOsvZip } from '../../shared/corpus/parse/osv-archive';
import { parseKevCatalog } from '../../shared/corpus/parse/kev';
import { parseEpssCsv } from '../../shared/corpus/parse/epss';
import { logger } from '../../shared/logger';
import { DispositionBatches } from '../../shared/dispositions/disposition-batches';

const feeds = z
  .object({
    CORPUS_OSV_URLS: z.string().default(''),
    CORPUS_KEV_URL: z.url().default('https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json'),
    CORPUS_EPSS_URL: z.url().default('https://epss.empiricalsecurity.com/epss_scores-current.csv.gz'),
  })
  .parse(process.env);

async function download(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export async function handler(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  // The scheduled sweep for disposition batches a crashed or timed-out Lambda left pending (reads of their releases finish them sooner).
  results.dispositionBatches = await DispositionBatches.recoverPending();
  for (const url of feeds.CORPUS_OSV_URLS.split(',').map((value) => value.trim()).filter(Boolean)) {
    results[url] = await importAdvisories(readOsvZip(await download(url)));
  }
  results.kev = await importKev(parseKevCatalog(JSON.parse(new TextDecoder().decode(await download(feeds.CORPUS_KEV_URL)))));
  results.epss = await importEpss(parseEpssCsv(await download(feeds.CORPUS_EPSS_URL)));
  logger.info('corpus refreshed', { results });
  return results;
}
