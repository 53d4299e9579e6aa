/**
 * Engines on the caller's thread (`thread: 'main'`): the SDK's calls reach the DynamoDB engine as
 * function calls; on their own thread (`worker`), as messages to it. Either way they must be answered as over loopback HTTP: errors in DynamoDB's shapes,
 * transactions, validation, and the same data seen by a client over the endpoint.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { engineThreadFromEnvironment, startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { clientFor } from '../support/embedded-transactions';
import { createActiveTable, createKeyValueTableCommand } from '../support/test-table';

function inProcessClient(engines: EmbeddedEngines) {
  if (!engines.dynamoTransport) throw new Error('the engines hand this process an in-process transport');
  return new DynamoDBClient({
    endpoint: engines.dynamoEndpoint,
    region: 'us-east-1',
    credentials: engines.credentials,
    ...engines.dynamoTransport,
    maxAttempts: 1,
  });
}

/** In-memory engines on `thread`, a client over loopback HTTP and one in process; `stop` ends all but the latter. */
async function startWithClients(thread: 'main' | 'worker') {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-main-'));
  const engines = await startEmbeddedEngines({ dataDir, inMemory: true, thread });
  const overHttp = clientFor(engines);
  const inProcess = inProcessClient(engines);
  const stop = async () => {
    overHttp.destroy();
    await engines.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { engines, overHttp, inProcess, stop };
}

describe("embedded engines on the caller's thread", () => {
  // On a worker thread (`npm start`'s default) this process's calls cross to the engine as messages, unsigned too.
  it.each(['main', 'worker'] as const)(
    "on the %s thread answer this process's calls as over HTTP: errors typed, transactions, validation, one store",
    async (thread) => {
      const { engines, overHttp, inProcess, stop } = await startWithClients(thread);
      try {
        await createActiveTable(inProcess, createKeyValueTableCommand('main-thread'));
        // As on DynamoDB, a new table takes writes once ACTIVE (here: one timer later).
        await waitUntilTableExists(
          { client: inProcess, maxWaitTime: 10, minDelay: 0.05 },
          { TableName: 'main-thread' },
        );
        await inProcess.send(
          new PutItemCommand({ TableName: 'main-thread', Item: { pk: { S: 'a' }, sk: { S: '1' } } }),
        );
        // The same store answers a client over the loopback endpoint.
        const seen = await overHttp.send(
          new GetItemCommand({ TableName: 'main-thread', Key: { pk: { S: 'a' }, sk: { S: '1' } } }),
        );
        expect(seen.Item).toEqual({ pk: { S: 'a' }, sk: { S: '1' } });

        await expect(
          inProcess.send(
            new PutItemCommand({
              TableName: 'main-thread',
              Item: { pk: { S: 'a' }, sk: { S: '1' } },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
        // dynalite's own validation answers, as over HTTP.
        await expect(
          inProcess.send(new PutItemCommand({ TableName: 'main-thread', Item: { pk: { S: 'a' } } })),
        ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/Missing the key sk/) });
        await expect(
          inProcess.send(new GetItemCommand({ TableName: 'no-such-table', Key: { pk: { S: 'a' }, sk: { S: '1' } } })),
        ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

        const cancelled = await inProcess
          .send(
            new TransactWriteItemsCommand({
              TransactItems: [
                { Put: { TableName: 'main-thread', Item: { pk: { S: 'b' }, sk: { S: '1' } } } },
                {
                  ConditionCheck: {
                    TableName: 'main-thread',
                    Key: { pk: { S: 'a' }, sk: { S: '1' } },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ],
            }),
          )
          .catch((error: unknown) => error);
        expect(cancelled).toBeInstanceOf(TransactionCanceledException);
        expect((cancelled as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
          'None',
          'ConditionalCheckFailed',
        ]);
        const untouched = await inProcess.send(
          new GetItemCommand({ TableName: 'main-thread', Key: { pk: { S: 'b' }, sk: { S: '1' } } }),
        );
        expect(untouched.Item).toBeUndefined();

        // The loopback endpoint still refuses a request signed with another key pair (the in-process
        // path takes only this process's own calls, so it checks none).
        const forged = new DynamoDBClient({
          endpoint: engines.dynamoEndpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: engines.credentials.accessKeyId, secretAccessKey: 'not-this-directory-s-secret' },
          maxAttempts: 1,
        });
        await expect(
          forged.send(new GetItemCommand({ TableName: 'main-thread', Key: { pk: { S: 'a' }, sk: { S: '1' } } })),
        ).rejects.toMatchObject({ name: 'InvalidSignatureException' });
        forged.destroy();
      } finally {
        await stop();
      }
      // After the stop a call fails as a refused connection would, not with an answer.
      await expect(
        inProcess.send(new GetItemCommand({ TableName: 'main-thread', Key: { pk: { S: 'a' }, sk: { S: '1' } } })),
      ).rejects.toMatchObject({ code: 'ECONNRESET' });
      inProcess.destroy();
    },
  );

  // The local notification dispatcher polls for other processes' events only once this count moved (background.ts).
  it.each(['main', 'worker'] as const)(
    'on the %s thread count the writes other processes make over loopback HTTP, not failed ones or this process’s own',
    async (thread) => {
      const { engines, overHttp, inProcess, stop } = await startWithClients(thread);
      const TableName = 'foreign-writes';
      const Key = { pk: { S: 'a' }, sk: { S: '1' } };
      try {
        await createActiveTable(overHttp, createKeyValueTableCommand(TableName));
        await waitUntilTableExists({ client: overHttp, maxWaitTime: 10, minDelay: 0.05 }, { TableName });
        expect(engines.foreignWrites()).toBe(0); // a table is not an item

        await inProcess.send(new PutItemCommand({ TableName, Item: { ...Key, by: { S: 'this process' } } }));
        await overHttp.send(new GetItemCommand({ TableName, Key }));
        expect(engines.foreignWrites()).toBe(0);

        await overHttp.send(new PutItemCommand({ TableName, Item: { ...Key, by: { S: 'another process' } } }));
        await overHttp.send(
          new UpdateItemCommand({
            TableName,
            Key,
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': { N: '1' } },
          }),
        );
        await overHttp.send(
          new BatchWriteItemCommand({
            RequestItems: { [TableName]: [{ PutRequest: { Item: { pk: { S: 'b' }, sk: { S: '1' } } } }] },
          }),
        );
        await overHttp.send(
          new TransactWriteItemsCommand({
            TransactItems: [{ Put: { TableName, Item: { pk: { S: 'c' }, sk: { S: '1' } } } }],
          }),
        );
        await overHttp.send(new DeleteItemCommand({ TableName, Key: { pk: { S: 'c' }, sk: { S: '1' } } }));
        expect(engines.foreignWrites()).toBe(5);

        await expect(
          overHttp.send(new PutItemCommand({ TableName, Item: Key, ConditionExpression: 'attribute_not_exists(pk)' })),
        ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
        expect(engines.foreignWrites()).toBe(5);
      } finally {
        inProcess.destroy();
        await stop();
      }
    },
  );

  it('is chosen by VEXDESK_ENGINES_THREAD, worker by default, and refuses anything else', () => {
    expect(engineThreadFromEnvironment({})).toBe('worker');
    expect(engineThreadFromEnvironment({ VEXDESK_ENGINES_THREAD: 'worker' })).toBe('worker');
    expect(engineThreadFromEnvironment({ VEXDESK_ENGINES_THREAD: 'main' })).toBe('main');
    expect(() => engineThreadFromEnvironment({ VEXDESK_ENGINES_THREAD: 'both' })).toThrow(/worker" or "main/);
  });
});
