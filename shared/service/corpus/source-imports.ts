/** Which corpus sources an import has completed for (`corpus/source-import/<source>` items). */
import { keys } from '../data/keys';
import { batchGet, batchWrite } from '../data/table-client';

export type CorpusSource = 'osv' | 'kev' | 'epss';

/**
 * Written as the last step of a source's import, never before: its presence
 * means one import of that source ran to the end (a crash mid-import leaves
 * it absent, and `completeCorpusImport` runs that source again).
 */
export async function recordImport(source: CorpusSource, fields: Record<string, unknown>): Promise<void> {
  await batchWrite([{ ...keys.corpusSourceImport(source), entity: 'CorpusSourceImport', source, ...fields }]);
}

/** The sources at least one import has completed for. */
export async function completedSources(): Promise<Set<CorpusSource>> {
  const items = await batchGet((['osv', 'kev', 'epss'] as const).map((source) => keys.corpusSourceImport(source)));
  return new Set(items.map((item) => item.source as CorpusSource));
}
