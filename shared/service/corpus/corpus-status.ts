/**
 * `GET /api/corpus/status`: how fresh the shared corpus is. Read through the caller's tenant
 * credentials like the scan's corpus reads (one batch read of the feed states).
 */
import type { CorpusStatusView } from '../schemas/corpus';
import { feedStatuses } from './feed-state';

export async function corpusStatus(): Promise<CorpusStatusView> {
  return { sources: await feedStatuses() };
}
