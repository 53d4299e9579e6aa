/**
 * Embedded engines of their own for the transaction tests (test/integration/embedded-transactions*.test.ts):
 * in memory, in a fresh data directory, with one bare pk/sk table, reached through the unchanged AWS SDK v3.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { createKeyValueTableCommand } from './test-table';

export const TABLE = 'transactions-test';

/** A client signing with the engines' own key pair (the only one they accept). */
export function clientFor(engines: EmbeddedEngines): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: engines.dynamoEndpoint,
    region: 'us-east-1',
    credentials: engines.credentials,
  });
}

let counter = 0;
export const uniquePk = (label: string) => `${label}#${Date.now()}#${++counter}`;

/** Starts in-memory engines holding TABLE; `stop` shuts them down and removes their data directory. */
export async function startTransactionTable(): Promise<{
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  stop: () => Promise<void>;
}> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-tx-'));
  const engines = await startEmbeddedEngines({ dataDir, inMemory: true });
  const client = clientFor(engines);
  const doc = DynamoDBDocumentClient.from(client);
  await client.send(createKeyValueTableCommand(TABLE));
  return {
    client,
    doc,
    stop: async () => {
      client.destroy();
      await engines.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
