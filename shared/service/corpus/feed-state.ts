/**
 * What the scheduled refresh remembers of each feed (OSV per ecosystem, KEV, EPSS): when it last
 * succeeded and was last tried, the last error, and what the next run starts from (OSV's listing
 * cursor, the validators of an unchanged download). Written only by the refresh; read by it and by
 * `GET /api/corpus/status`.
 */
import { keys } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { ECOSYSTEMS } from '../matching/ecosystems';
import type { FeedValidators } from './feed-download';
import type { ArchiveImportState } from './osv-archive-refresh';

export type FeedSource = 'osv' | 'kev' | 'epss';

export interface FeedId {
  source: FeedSource;
  /** OSV only: the ecosystem, spelled as OSV spells it. */
  ecosystem?: string;
}

export interface FeedState extends FeedId {
  lastSuccessAt?: string;
  lastAttemptAt?: string;
  /** The last attempt's error; absent once an attempt succeeds. */
  lastError?: string;
  /** Records the last successful run took in: changed OSV records, KEV entries, EPSS rows. */
  records?: number;
  /** OSV: the newest `modified` of the ecosystem's modified_id.csv at the last success (normalised, see osv-feed.ts). */
  cursor?: string;
  /** OSV: when the ecosystem's whole all.zip was last imported. */
  lastFullAt?: string;
  /** What the feed's server sent with the last successful download, for a conditional request next time. */
  validators?: FeedValidators;
  /** KEV: the catalogVersion; EPSS: the score date (of the last successful import). */
  version?: string;
  /** OSV: a whole-archive import under way, resumed by the next run from its cursor. */
  archive?: ArchiveImportState;
}

export function feedName(feed: FeedId): string {
  return feed.ecosystem === undefined ? feed.source : `${feed.source}/${feed.ecosystem}`;
}

function fromItem(item: Item): FeedState {
  const { pk: _pk, sk: _sk, entity: _entity, ...state } = item;
  return state as unknown as FeedState;
}

/** The stored state of each feed, by `feedName`; a feed never refreshed is absent. */
export async function readFeedStates(feeds: readonly FeedId[]): Promise<Map<string, FeedState>> {
  const items = await batchGet(feeds.map((feed) => keys.corpusFeedState(feed.source, feed.ecosystem)));
  return new Map(items.map((item) => [feedName(item as unknown as FeedId), fromItem(item)]));
}

export async function writeFeedStates(states: readonly FeedState[]): Promise<void> {
  await batchWrite(
    states.map((state) => ({
      ...keys.corpusFeedState(state.source, state.ecosystem),
      entity: 'CorpusFeedState',
      // Absent fields stay absent: the item is the state, whole.
      ...Object.fromEntries(Object.entries(state).filter(([, value]) => value !== undefined)),
    })),
  );
}

/** Every feed the refresh can keep state for: OSV in each ecosystem the matcher supports, KEV, EPSS. */
const EVERY_FEED: readonly FeedId[] = [
  ...ECOSYSTEMS.map((ecosystem) => ({ source: 'osv' as const, ecosystem })),
  { source: 'kev' },
  { source: 'epss' },
];

export interface FeedStatus {
  source: FeedSource;
  ecosystem?: string;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error?: string;
  records?: number;
}

/** The feeds the refresh has tried at least once, OSV ecosystems first in the matcher's order. */
export async function feedStatuses(): Promise<FeedStatus[]> {
  const states = await readFeedStates(EVERY_FEED);
  return EVERY_FEED.flatMap((feed) => {
    const state = states.get(feedName(feed));
    if (!state) return [];
    return [
      {
        source: state.source,
        ...(state.ecosystem !== undefined ? { ecosystem: state.ecosystem } : {}),
        last_success_at: state.lastSuccessAt ?? null,
        last_attempt_at: state.lastAttemptAt ?? null,
        ...(state.lastError !== undefined ? { last_error: state.lastError } : {}),
        ...(state.records !== undefined ? { records: state.records } : {}),
      },
    ];
  });
}
