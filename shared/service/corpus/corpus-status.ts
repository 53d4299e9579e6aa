/**
 * `GET /api/corpus/status`: how fresh the shared corpus is. Read through the caller's tenant
 * credentials like the scan's corpus reads (one batch read of the feed states).
 */
import type { CorpusStatusView } from '../schemas/corpus';
import { corpusChanges } from '../watch/corpus-changes';
import { feedStatuses } from './feed-state';

export async function corpusStatus(): Promise<CorpusStatusView> {
  const [sources, version] = await Promise.all([feedStatuses(), corpusChanges.version()]);
  return { sources, corpus_version: version };
}
