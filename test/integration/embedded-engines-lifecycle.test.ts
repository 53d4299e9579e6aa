/** The embedded engines' lifecycle: the published endpoints, a refused second start, durability across a restart. */
import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScanCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { findRunningEngines, startEmbeddedEngines } from '../../shared/local/engines';
import { clientFor } from '../support/embedded-transactions';
import { createActiveTable, createKeyValueTableCommand } from '../support/test-table';
describe('embedded engines lifecycle', () => {
  it('publishes its endpoints in engines.json, refuses a second start and removes the file on stop', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-life-'));
    try {
      const engines = await startEmbeddedEngines({ dataDir, inMemory: true });
      const file = JSON.parse(await readFile(path.join(dataDir, 'engines.json'), 'utf8')) as Record<string, unknown>;
      expect(file).toEqual({
        pid: process.pid,
        dynamoEndpoint: engines.dynamoEndpoint,
        s3Endpoint: engines.s3Endpoint,
      });
      expect(engines.dynamoEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await findRunningEngines(dataDir)).toEqual({
        dataDir,
        dynamoEndpoint: engines.dynamoEndpoint,
        s3Endpoint: engines.s3Endpoint,
        credentials: engines.credentials,
      });
      await expect(startEmbeddedEngines({ dataDir, inMemory: true })).rejects.toThrow(/already run/);

      await engines.stop();
      await engines.stop(); // idempotent
      await expect(stat(path.join(dataDir, 'engines.json'))).rejects.toThrow();
      expect(await findRunningEngines(dataDir)).toBeUndefined();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps every acknowledged write in LevelDB across a stop and restart', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-disk-'));
    try {
      const first = await startEmbeddedEngines({ dataDir });
      const firstClient = clientFor(first);
      await createActiveTable(firstClient, createKeyValueTableCommand('durable'));
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          firstClient.send(
            new TransactWriteItemsCommand({
              TransactItems: [
                { Put: { TableName: 'durable', Item: { pk: { S: 'p' }, sk: { S: `a${index}` } } } },
                { Put: { TableName: 'durable', Item: { pk: { S: 'p' }, sk: { S: `b${index}` } } } },
              ],
            }),
          ),
        ),
      );
      firstClient.destroy();
      await first.stop();
      await expect(stat(path.join(dataDir, 'dynamodb'))).resolves.toBeDefined();

      const second = await startEmbeddedEngines({ dataDir });
      const secondClient = clientFor(second);
      try {
        const items = await secondClient.send(new ScanCommand({ TableName: 'durable', ConsistentRead: true }));
        expect(items.Count).toBe(40);
      } finally {
        secondClient.destroy();
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
