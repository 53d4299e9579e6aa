/**
 * Reading a team's audit log in time order. Entries are written to AUDIT_SHARDS
 * partitions (shared/service/data/keys.ts), in the table and in each audit GSI, so every
 * read runs one Query per shard on the key the filters choose (entity type →
 * gsi1, action → gsi2, both → gsi3, neither → the table) and merges the shards
 * by sort key (`<ISO timestamp>#<id>`). That is the order the single audit
 * partition used to return, so the export's rows and their order are unchanged.
 * Each shard is read page by page with the next page prefetched; a reader that
 * stops early (the export at row 10,001) ends every shard's Query.
 */
import { keys } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import { onIndex, queryPages, type Item, type PrefixQuery } from '../data/table-client';

export interface AuditFilter {
  entityType?: string | undefined;
  action?: string | undefined;
  /** ISO 8601 with offset; inclusive. */
  startDate?: string | undefined;
  /** ISO 8601 with offset; inclusive. */
  endDate?: string | undefined;
}

/** Items per Query page and shard: with one page prefetched, a read holds at most 2 × 8 × 500 items. */
const SHARD_PAGE_SIZE = 500;

/** Above every character a sort key's `#<uuid>` suffix can hold, so an end bound includes its whole millisecond. */
const SORT_KEY_CEILING = '\uffff';

/**
 * Stored timestamps are `Date#toISOString()` (UTC, milliseconds), and sort keys start
 * with them, so a bound must use the same form to compare as text. Sub-millisecond
 * digits cannot match a stored entry: a start bound rounds up, an end bound down.
 */
function sortKeyBound(value: string, edge: 'start' | 'end'): string {
  const millis = Date.parse(value);
  const subMillisecond = /\.\d{3}(\d*)/.exec(value)?.[1] ?? '';
  const roundUp = edge === 'start' && /[1-9]/.test(subMillisecond);
  return new Date(millis + (roundUp ? 1 : 0)).toISOString();
}

/** The Queries a read runs, one per shard, all on the same table or index; exported so tests can show which key serves each filter. */
export function auditQueryPlan(teamId: string, filter: AuditFilter): PrefixQuery[] {
  const { entityType, action } = filter;
  let range: [string, string] | undefined;
  if (filter.startDate !== undefined || filter.endDate !== undefined) {
    // Sort keys are `<ISO timestamp>#<id>`: '' sorts before and the ceiling after every one of them.
    const from = filter.startDate !== undefined ? sortKeyBound(filter.startDate, 'start') : '';
    const to =
      filter.endDate !== undefined ? `${sortKeyBound(filter.endDate, 'end')}#${SORT_KEY_CEILING}` : SORT_KEY_CEILING;
    range = [from, to];
  }
  return keys.auditPartitions(teamId).map(({ pk }, shard) => {
    let query: PrefixQuery;
    if (entityType !== undefined && action !== undefined) {
      query = onIndex('gsi3', keys.auditByEntityTypeAndAction(teamId, entityType, action, shard).gsi3pk);
    } else if (entityType !== undefined) {
      query = onIndex('gsi1', keys.auditByEntityType(teamId, entityType, shard).gsi1pk);
    } else if (action !== undefined) {
      query = onIndex('gsi2', keys.auditByAction(teamId, action, shard).gsi2pk);
    } else {
      query = { pk };
    }
    return { ...query, ...(range ? { skBetween: range } : {}), pageSize: SHARD_PAGE_SIZE };
  });
}

interface ShardCursor {
  pages: AsyncGenerator<Item[]>;
  page: Item[];
  index: number;
  next: Promise<IteratorResult<Item[]>>;
}

/** Advances to the next non-empty page (prefetching the one after it); false when the shard is exhausted. */
async function loadPage(cursor: ShardCursor): Promise<boolean> {
  for (;;) {
    const result = await cursor.next;
    if (result.done) return false;
    cursor.next = cursor.pages.next();
    if (result.value.length > 0) {
      cursor.page = result.value;
      cursor.index = 0;
      return true;
    }
  }
}

/**
 * Merges ranges that are each sorted by `sortKey` into one ascending stream (descending when the
 * queries read `descending`, the event stream's newest-first order).
 * Sort keys are ASCII (ISO timestamp, '#', uuid), so JavaScript's string order is
 * DynamoDB's byte order; ids are unique, so no two keys are equal.
 */
export async function* mergeSorted(queries: PrefixQuery[]): AsyncGenerator<Item> {
  const cursors: ShardCursor[] = queries.map((query) => {
    const pages = queryPages<Item>(query);
    return { pages, page: [], index: 0, next: pages.next() };
  });
  const sortKeyOf = (cursor: ShardCursor) =>
    String(cursor.page[cursor.index]?.[queries[0]?.skAttribute ?? tableDefinition.sortKey]);
  const descending = queries[0]?.descending === true;
  const before = (a: ShardCursor, b: ShardCursor) =>
    descending ? sortKeyOf(a) > sortKeyOf(b) : sortKeyOf(a) < sortKeyOf(b);
  try {
    const loaded = await Promise.all(cursors.map(loadPage));
    const live = cursors.filter((_cursor, position) => loaded[position]);
    while (live.length > 0) {
      let smallest = 0;
      for (let position = 1; position < live.length; position += 1) {
        if (before(live[position]!, live[smallest]!)) smallest = position;
      }
      const cursor = live[smallest]!;
      yield cursor.page[cursor.index]!;
      cursor.index += 1;
      if (cursor.index === cursor.page.length && !(await loadPage(cursor))) live.splice(smallest, 1);
    }
  } finally {
    // A reader that stopped early: settle the prefetches and end every shard's Query.
    await Promise.all(
      cursors.map(async (cursor) => {
        await cursor.next.catch(() => undefined);
        await cursor.pages.return(undefined);
      }),
    );
  }
}

/** The team's audit entries matching `filter`, oldest first (by sort key), as a stream. */
export function auditItemsInOrder(teamId: string, filter: AuditFilter = {}): AsyncGenerator<Item> {
  return mergeSorted(auditQueryPlan(teamId, filter));
}

/** The whole (filtered) audit log in memory: for small logs, tests and tools. */
export async function readAuditLog(teamId: string, filter: AuditFilter = {}): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of auditItemsInOrder(teamId, filter)) items.push(item);
  return items;
}
