/**
 * Engine write bench: CPU per item written by the embedded DynamoDB engine alone (no SDK, no HTTP),
 * for the write shapes the notification dispatch and the corpus import make. The engine runs on
 * this thread over a LevelDB directory with its journal, as `npm start` has it; requests are
 * handed to its in-process entry as wire JSON. CPU is process.cpuUsage (user + system) per round,
 * divided by the items of the round; the median of the rounds is reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { printReport } from './main';
import { median } from './stats';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../shared/local/embedded-dynamo';
import { createTableInput } from '../../shared/local/resources';

const TABLE = 'vexdesk';
const ROUNDS = Number(process.env.ENGINE_BENCH_ROUNDS ?? 15);
const BATCHES_PER_ROUND = 40;
const TRANSACTIONS_PER_ROUND = 10;
/** `new`, `replace` or `transaction`: only that case (for profiling one of them). */
const ONLY = process.env.ENGINE_BENCH_ONLY;
const runs = (name: string) => ONLY === undefined || ONLY === '' || ONLY === name;

type Item = Record<string, Record<string, unknown>>;

/** An item shaped like the service's (keys, two GSI key pairs, a few scalars, a list and a map; ~700 bytes). */
function item(scope: string, index: number, version = 0): Item {
  const id = `${scope}#${String(index).padStart(8, '0')}`;
  return {
    pk: { S: `TEAM#vxdteam0000000000000000000000001#ADVISORY#${id}` },
    sk: { S: 'META' },
    gsi1pk: { S: `PKG#npm#left-pad-${index % 997}` },
    gsi1sk: { S: `ADV#${id}` },
    gsi2pk: { S: `ECOSYSTEM#npm` },
    gsi2sk: { S: `MODIFIED#2026-12-06T14:${String(index % 60).padStart(2, '0')}:00Z#${id}` },
    summary: { S: `Prototype pollution in left-pad before 1.3.${index % 10} (${'x'.repeat(200)})` },
    severity: { S: 'HIGH' },
    score: { N: String(7.5 + (index % 10) / 10) },
    version: { N: String(version) },
    aliases: { L: [{ S: `CVE-2026-${index}` }, { S: `GHSA-${index}-abcd-efgh` }] },
    ranges: {
      M: { introduced: { S: '0' }, fixed: { S: `1.3.${index % 10}` }, ecosystem: { S: 'npm' } },
    },
    contentHash: { S: 'f'.repeat(64) },
  };
}

function keyOf(value: Item): Item {
  return { pk: value.pk!, sk: value.sk! };
}

async function call(engine: EmbeddedDynamo, operation: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await engine.serve({
    method: 'POST',
    url: '/',
    headers: { 'x-amz-target': `DynamoDB_20120810.${operation}`, 'content-type': 'application/x-amz-json-1.0' },
    body: Buffer.from(JSON.stringify(body)),
  });
  if (!response) throw new Error(`${operation}: engine stopping`);
  const parsed = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${operation}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

function batchWrite(items: Item[]): unknown {
  return { RequestItems: { [TABLE]: items.map((value) => ({ PutRequest: { Item: value } })) } };
}

interface Measured {
  /** Process CPU (every thread: LevelDB's write and compaction threads too) per item. */
  perItemUs: number;
  /** Of which on this thread (JavaScript, dynalite, the LevelDB calls' own share). */
  threadPerItemUs: number;
  items: number;
}

/**
 * Median CPU µs per item over the rounds; `round(r, prepared)` runs one round and answers its item count,
 * after `prepare(r)` (not measured) made what it needs.
 */
async function measure<T = undefined>(
  round: (index: number, prepared: T) => Promise<number>,
  prepare: (index: number) => Promise<T> = () => Promise.resolve(undefined as T),
): Promise<Measured> {
  await round(-1, await prepare(-1)); // warm-up
  const perItem: number[] = [];
  const threadPerItem: number[] = [];
  let items = 0;
  for (let index = 0; index < ROUNDS; index += 1) {
    const prepared = await prepare(index);
    const before = process.cpuUsage();
    const threadBefore = process.threadCpuUsage();
    const count = await round(index, prepared);
    const used = process.cpuUsage(before);
    const threadUsed = process.threadCpuUsage(threadBefore);
    perItem.push((used.user + used.system) / count);
    threadPerItem.push((threadUsed.user + threadUsed.system) / count);
    items += count;
  }
  return { perItemUs: median(perItem), threadPerItemUs: median(threadPerItem), items };
}

const perItem = (measured: Measured | undefined) =>
  measured === undefined
    ? 'not run | not run'
    : `${measured.perItemUs.toFixed(1)} µs | ${measured.threadPerItemUs.toFixed(1)} µs`;

export async function benchEngineWrites(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-engine-writes-'));
  const engine = await startEmbeddedDynamo({
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    path: path.join(dataDir, 'dynamodb'),
    journalDir: path.join(dataDir, 'dynamodb-journal'),
    socketDir: dataDir,
  });
  try {
    await call(engine, 'CreateTable', createTableInput(TABLE));
    // Tables become ACTIVE one timer later.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const { Table } = (await call(engine, 'DescribeTable', { TableName: TABLE })) as {
        Table: { TableStatus: string };
      };
      if (Table.TableStatus === 'ACTIVE') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // A store that is not empty: the reads of new keys meet table files, as in a real data directory.
    for (let batch = 0; batch < 400; batch += 1)
      await call(
        engine,
        'BatchWriteItem',
        batchWrite(Array.from({ length: 25 }, (_, i) => item('seed', batch * 25 + i))),
      );

    const fresh = !runs('new')
      ? undefined
      : await measure(async (round) => {
          for (let batch = 0; batch < BATCHES_PER_ROUND; batch += 1) {
            const base = ((round + 1) * BATCHES_PER_ROUND + batch) * 25;
            await call(
              engine,
              'BatchWriteItem',
              batchWrite(Array.from({ length: 25 }, (_, i) => item('new', base + i))),
            );
          }
          return BATCHES_PER_ROUND * 25;
        });
    const replaced = !runs('replace')
      ? undefined
      : await measure(async (round) => {
          for (let batch = 0; batch < BATCHES_PER_ROUND; batch += 1) {
            const base = batch * 25;
            await call(
              engine,
              'BatchWriteItem',
              batchWrite(Array.from({ length: 25 }, (_, i) => item('new', base + i, round + 2))),
            );
          }
          return BATCHES_PER_ROUND * 25;
        });
    // Notification dispatch's shape: 75 deliveries put if absent, 25 outbox entries removed.
    let outbox = 0;
    const transactions = !runs('transaction')
      ? undefined
      : await measure<Item[][]>(
          async (round, deletes) => {
            for (let tx = 0; tx < TRANSACTIONS_PER_ROUND; tx += 1) {
              const base = ((round + 1) * TRANSACTIONS_PER_ROUND + tx) * 75;
              await call(engine, 'TransactWriteItems', {
                TransactItems: [
                  ...Array.from({ length: 75 }, (_, i) => ({
                    Put: {
                      TableName: TABLE,
                      Item: item('delivery', base + i),
                      ConditionExpression: 'attribute_not_exists(pk)',
                    },
                  })),
                  ...deletes[tx]!.map((entry) => ({
                    Delete: { TableName: TABLE, Key: keyOf(entry), ConditionExpression: 'attribute_exists(pk)' },
                  })),
                ],
              });
            }
            return TRANSACTIONS_PER_ROUND * 100;
          },
          async () => {
            const deletes: Item[][] = [];
            for (let tx = 0; tx < TRANSACTIONS_PER_ROUND; tx += 1) {
              const entries = Array.from({ length: 25 }, () => item('outbox', outbox++));
              await call(engine, 'BatchWriteItem', batchWrite(entries));
              deletes.push(entries);
            }
            return deletes;
          },
        );
    return [
      `Engine write cost (CPU per item written, median of ${ROUNDS} rounds; engine alone, no SDK or HTTP):`,
      '| Write | CPU per item (process) | of which the engine thread |',
      '|---|---|---|',
      `| BatchWriteItem, 25 new items with 2 GSI keys | ${perItem(fresh)} |`,
      `| BatchWriteItem, 25 items replacing existing ones | ${perItem(replaced)} |`,
      `| TransactWriteItems, 75 conditional Puts + 25 conditional Deletes | ${perItem(transactions)} |`,
    ].join('\n');
  } finally {
    await engine.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printReport(benchEngineWrites());
}
