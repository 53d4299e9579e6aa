/**
 * The item a transaction's Update leaves, computed by dynalite's own UpdateItem action (dynalite 4.0.0) run
 * against the transaction's snapshot instead of the store: its key and update checks, its condition, its
 * update expression, its item size limit and its errors, unchanged. The action reads the item through the
 * snapshot and its writes (the item, the index entries) are captured, not made: the transaction then writes
 * the item with its Puts and Deletes in one LevelDB batch (embedded-dynalite-store.ts `writeItems`), which
 * computes the index entries with the same helpers the action would have used.
 */
import { createRequire } from 'node:module';
import { isDynaliteError, type AttributeMap, type DynaliteError, type DynaliteStore } from './embedded-dynalite-store';

const require = createRequire(import.meta.url);

type Callback = (error: unknown, result?: unknown) => void;
type UpdateItemAction = (store: unknown, data: Record<string, unknown>, callback: Callback) => void;
const updateItemAction = require('dynalite/actions/updateItem') as UpdateItemAction;

export type UpdateOutcome = { item: AttributeMap } | { refused: DynaliteError };

/**
 * Runs dynalite's UpdateItem action on a request its validation returned (`validated`, consumed: the action
 * builds a new item on its Key) against `existing`, the item as the snapshot has it. Resolves with the item
 * it would store, or its refusal; a fault of the table lookup rejects.
 */
export function updatedItem(
  store: DynaliteStore & { options: unknown },
  validated: Record<string, unknown>,
  existing: AttributeMap | undefined,
): Promise<UpdateOutcome> {
  return new Promise((resolve, reject) => {
    let written: AttributeMap | undefined;
    const snapshotItems = {
      // Every write of the engine holds its exclusive lock: the action's per-key lock is not needed.
      lock: (_key: string, critical: (release: (callback: Callback) => Callback) => void) =>
        critical((callback) => callback),
      get: (_key: string, callback: Callback) => callback(null, existing),
      put: (_key: string, item: AttributeMap, callback: Callback) => {
        written = item;
        callback(null);
      },
    };
    const capturedIndexes = {
      put: (_key: string, _item: unknown, callback: Callback) => callback(null),
      del: (_key: string, callback: Callback) => callback(null),
    };
    const snapshotStore = {
      options: store.options,
      getTable: store.getTable.bind(store),
      getItemDb: () => snapshotItems,
      getIndexDb: () => capturedIndexes,
    };
    updateItemAction(snapshotStore, validated, (error) => {
      if (isDynaliteError(error)) resolve({ refused: error });
      else if (error) reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      else if (!written) reject(new Error('dynalite updateItem answered without writing the item'));
      else resolve({ item: written });
    });
  });
}
