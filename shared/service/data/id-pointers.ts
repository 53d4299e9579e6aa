/**
 * Id pointers resolve a public uuid to the item that holds it. They live in
 * the team partition, so a lookup with another team's id finds nothing (404),
 * and are written in the same transaction as the entity they point to.
 */
import { keys, type Key } from './keys';
import { batchWrite, getItem, queryPages, tx, type Item, type TransactItem } from './table-client';

export type PointerEntity = 'release' | 'sbom' | 'finding' | 'disposition' | 'vex_document';

export interface IdPointer {
  entityType: PointerEntity;
  target: Key;
  productId: string;
  releaseId: string;
  /** Extra ids the entity needs to build its own key (e.g. the SBOM of a finding). */
  sbomId?: string;
  vulnerabilityId?: string;
}

export function pointerItem(teamId: string, entityId: string, pointer: IdPointer): Item {
  return { ...keys.idPointer(teamId, entityId), entity: 'IdPointer', ...pointer };
}

export function pointerPut(teamId: string, entityId: string, pointer: IdPointer): TransactItem {
  return tx.create(pointerItem(teamId, entityId, pointer));
}

export async function resolvePointer(
  teamId: string,
  entityId: string,
  entityType: PointerEntity,
): Promise<IdPointer | undefined> {
  const item = await getItem(keys.idPointer(teamId, entityId));
  if (!item || item.entityType !== entityType) return undefined;
  return item as unknown as IdPointer; // written only by pointerItem above
}

/**
 * Deletes every item of a key range and the id pointers of those that carry a public `id`, pointers
 * first: once they are gone no id in the range resolves, even if the walk stops midway. Returns how
 * many items it removed. (The cascading deletes of releases and SBOMs; a product delete does the same.)
 */
export async function deleteRangeWithPointers(
  teamId: string,
  range: { pk: string; skPrefix?: string },
): Promise<number> {
  let removed = 0;
  for await (const page of queryPages<Item>({ ...range, projection: ['pk', 'sk', 'id'] })) {
    const pointerKeys = page
      .filter((item) => typeof item.id === 'string')
      .map((item) => keys.idPointer(teamId, String(item.id)));
    await batchWrite([], pointerKeys);
    await batchWrite(
      [],
      page.map((item) => ({ pk: String(item.pk), sk: String(item.sk) })),
    );
    removed += page.length;
  }
  return removed;
}
