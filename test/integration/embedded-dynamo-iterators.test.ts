/**
 * Every Query closes its LevelDB iterator (shared/local/embedded-dynalite-store.ts). An iterator
 * left open pins the store's table files of its moment: compaction could never delete the files it
 * replaced, so a store that is written and queried grew without bound (and its memtables stayed in
 * memory). Here the same few items are rewritten many times with a query between the batches; once
 * compaction has run, the store must hold about the live data, not every version written.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BatchWriteItemCommand, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LEVELDB_OPEN_OPTIONS } from '../../shared/local/embedded-dynalite';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { clientFor } from '../support/embedded-transactions';
import { createActiveTable, createKeyValueTableCommand } from '../support/test-table';

const TABLE = 'iterators-test';
const ITEM_BYTES = 100 * 1024;
const ITEMS = 10;
/** LevelDB's write buffer: the size of a level-0 table of incompressible data. */
const WRITE_BUFFER_MB = LEVELDB_OPEN_OPTIONS.writeBufferSize / (1024 * 1024);
// Eight write buffers of versions (base64: 4/3 of the bytes), so that level 0 reaches its compaction trigger
// (4 tables) twice; 1.4 MB of it live at the end.
const ROUNDS = Math.ceil((8 * LEVELDB_OPEN_OPTIONS.writeBufferSize) / (ITEMS * ITEM_BYTES * (4 / 3)));
/** Up to 3 level-0 tables, the write buffer's worth that may be in the memtable, the live data and slack. */
const SETTLED_MB = 4 * WRITE_BUFFER_MB + 8;
let dataDir: string;
let engines: EmbeddedEngines;
let client: DynamoDBClient;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-iterators-'));
  engines = await startEmbeddedEngines({ dataDir });
  client = clientFor(engines);
  await createActiveTable(client, createKeyValueTableCommand(TABLE));
});

afterAll(async () => {
  client.destroy();
  await engines.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function tableFilesMb(): Promise<number> {
  const directory = path.join(dataDir, 'dynamodb');
  const names = (await readdir(directory)).filter((name) => name.endsWith('.ldb'));
  const sizes = await Promise.all(names.map(async (name) => (await stat(path.join(directory, name))).size));
  return sizes.reduce((sum, size) => sum + size, 0) / (1024 * 1024);
}

describe('Query on the embedded engine', () => {
  it('lets compaction delete replaced table files (no iterator stays open)', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const requests = Array.from({ length: ITEMS }, (_, index) => ({
        PutRequest: {
          // Random bytes: LevelDB's compression must not shrink the versions away.
          Item: {
            pk: { S: 'rewritten' },
            sk: { S: `item-${index}` },
            body: { S: randomBytes(ITEM_BYTES).toString('base64') },
          },
        },
      }));
      await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } }));
      // One query that stops at its limit, one that reads to the end.
      for (const limit of [1, undefined]) {
        await client.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: 'rewritten' } },
            ProjectionExpression: 'sk',
            ...(limit === undefined ? {} : { Limit: limit }),
          }),
        );
      }
    }
    // Live data is ~1.4 MB (base64); LevelDB keeps up to 3 level-0 files (a write buffer each) before compacting.
    // Pinned by an open iterator, every version written would stay: 8 write buffers.
    const deadline = Date.now() + 30_000;
    let sizeMb = await tableFilesMb();
    while (sizeMb > SETTLED_MB && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 250));
      sizeMb = await tableFilesMb();
    }
    expect(sizeMb).toBeLessThan(SETTLED_MB);
  }, 240_000);
});
