/**
 * `apikey.expiring`: seven days before an API key expires its team hears of it, once per key. The periodic check
 * (the scan worker's schedule on AWS, the background loop locally) reads the sparse expiry index
 * (keys.apiKeyExpiryIndex) up to a week ahead; for each key it writes the event and removes the key's index entry
 * in one transaction, so a check cut off and run again neither repeats nor loses one. A revoked or already
 * expired key leaves the index without an event. Keys made before the index are indexed by
 * `ensureApiKeyExpiryIndex` (local start, `admin table migrate`).
 */
import { keys } from '../data/keys';
import { queryAll, transactWrite, TransactionFailedError, tx, updateItem } from '../data/table-client';
import { runOnce, scanPages } from '../data/table-maintenance';
import { tableDefinition } from '../data/table-definition';
import { eventId, eventItem } from '../events/event-store';

export const EXPIRY_WARNING_MS = 7 * 24 * 60 * 60 * 1000;
const [GSI1] = tableDefinition.globalIndexes;

export interface KeyExpiryCheck {
  keys: number;
  events: number;
}

export async function checkApiKeyExpiry(now = new Date()): Promise<KeyExpiryCheck> {
  const horizon = new Date(now.getTime() + EXPIRY_WARNING_MS).toISOString();
  const items = await queryAll({
    pk: keys.apiKeyExpiryPartition().gsi1pk,
    indexName: GSI1.indexName,
    pkAttribute: GSI1.partitionKey,
    skAttribute: GSI1.sortKey,
    // `#` sorts after every character of a timestamp: every key expiring up to the horizon.
    skBetween: ['', `${horizon}$`],
  });
  const result: KeyExpiryCheck = { keys: items.length, events: 0 };
  for (const item of items) {
    const teamId = String(item.teamId);
    const keyId = String(item.id);
    const expiresAt = String(item.expiresAt);
    const unindex = tx.update(
      keys.apiKey(teamId, keyId),
      'REMOVE gsi1pk, gsi1sk',
      { '#sk': 'gsi1sk' },
      { ':sk': item.gsi1sk },
      '#sk = :sk',
    );
    const stillUsable = !item.revokedAt && expiresAt > now.toISOString();
    const at = now.toISOString();
    const event = eventItem({
      id: eventId('apikey.expiring', teamId, keyId),
      type: 'apikey.expiring',
      occurredAt: at,
      teamId,
      productId: '',
      releaseId: '',
      data: { key_id: keyId, key_name: String(item.name), expires_at: expiresAt },
    });
    try {
      await transactWrite(stillUsable ? [unindex, tx.put(event)] : [unindex]);
      if (stillUsable) result.events += 1;
    } catch (error) {
      // Another check took it first, or the key changed: the index entry says what is left to do.
      if (!(error instanceof TransactionFailedError)) throw error;
    }
  }
  return result;
}

/** Bump when keys need indexing again. */
export const API_KEY_EXPIRY_INDEX_VERSION = 1;

/** Indexes the unrevoked keys with an expiry made before the index existed; once per table (a marker records it). */
export function ensureApiKeyExpiryIndex(): Promise<{ keys: number } | undefined> {
  return runOnce(keys.apiKeyExpiryIndexMigration(API_KEY_EXPIRY_INDEX_VERSION), async () => {
    let indexed = 0;
    const unindexed = scanPages({
      expression:
        '#entity = :key AND attribute_type(#expiresAt, :string) AND attribute_not_exists(#revokedAt) AND attribute_not_exists(#gsi1pk)',
      names: { '#entity': 'entity', '#expiresAt': 'expiresAt', '#revokedAt': 'revokedAt', '#gsi1pk': 'gsi1pk' },
      values: { ':key': 'ApiKey', ':string': 'S' },
    });
    for await (const page of unindexed) {
      for (const item of page) {
        const index = keys.apiKeyExpiryIndex(String(item.teamId), String(item.id), String(item.expiresAt));
        await updateItem(
          keys.apiKey(String(item.teamId), String(item.id)),
          'SET gsi1pk = :pk, gsi1sk = :sk',
          undefined,
          { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
          // A key deleted meanwhile is skipped (the condition fails quietly).
          'attribute_exists(pk)',
        );
        indexed += 1;
      }
    }
    return { keys: indexed };
  });
}
