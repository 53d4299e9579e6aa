/**
 * Writes per partition (docs/architecture/data-layout.md "Partition load"). DynamoDB serves
 * about 1,000 writes per second per partition, in the table and in each GSI; the
 * embedded engine has no such limit, so this counts what a real upload + scan and a
 * bulk audit stream send to each partition key and bounds it. The upload and the
 * scan run in this process (no scan worker is registered here, so the upload does
 * not dispatch one) against the server's engines, through the same SDK client the
 * functions use, with a counting middleware on it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { destroyClients, dynamoItems } from '../../shared/service/aws-clients';
import { recordAudit, type AuditEvent } from '../../shared/service/audit/audit-log';
import { importAdvisories } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { keys } from '../../shared/service/data/keys';
import { tableDefinition } from '../../shared/service/data/table-definition';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Sboms } from '../../shared/service/sboms/sboms';
import { Scans } from '../../shared/service/scans/scans';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';

type Values = Record<string, unknown>;
const asRecord = (value: unknown): Values => (value !== null && typeof value === 'object' ? (value as Values) : {});
/** A key attribute from the document client's plain value or the marshalled `{ S }` form. */
const keyString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof asRecord(value).S === 'string' ? String(asRecord(value).S) : undefined;

/** The partitions one written item lands in: the table's, and each GSI's whose key the item carries. */
function partitionsOf(item: unknown, wholeItem: boolean): string[] {
  const values = asRecord(item);
  const indexes = wholeItem ? tableDefinition.globalIndexes : [];
  return [
    keyString(values[tableDefinition.partitionKey]),
    ...indexes.map((index) => {
      const value = keyString(values[index.partitionKey]);
      return value === undefined ? undefined : `${index.indexName}:${value}`;
    }),
  ].filter((key): key is string => key !== undefined);
}

/** Item writes per partition key, from the write commands' inputs (a delete or update counts on the table's partition). */
function writesOf(command: string, input: Values): string[] {
  switch (command) {
    case 'PutItemCommand':
    case 'PutCommand':
      return partitionsOf(input.Item, true);
    case 'UpdateItemCommand':
    case 'UpdateCommand':
    case 'DeleteItemCommand':
    case 'DeleteCommand':
      return partitionsOf(input.Key, false);
    case 'BatchWriteItemCommand':
    case 'BatchWriteCommand':
      return Object.values(asRecord(input.RequestItems)).flatMap((requests) =>
        (requests as Values[]).flatMap((request) => {
          const put = asRecord(request.PutRequest).Item;
          return put !== undefined ? partitionsOf(put, true) : partitionsOf(asRecord(request.DeleteRequest).Key, false);
        }),
      );
    case 'TransactWriteItemsCommand':
    case 'TransactWriteCommand':
      return ((input.TransactItems as Values[] | undefined) ?? []).flatMap((item) => {
        if (item.Put !== undefined) return partitionsOf(asRecord(item.Put).Item, true);
        const other = asRecord(item.Update ?? item.Delete);
        return other.Key !== undefined ? partitionsOf(other.Key, false) : [];
      });
    default:
      return [];
  }
}

const COUNTER = 'partitionWriteCounter';

/**
 * Counts writes per partition key for the rest of the test. The counter goes on a new client before its first call:
 * the client resolves its middleware stack once per command, at its first call of it (aws-clients.ts `dynamoItems`).
 */
function countWrites(): Map<string, number> {
  destroyClients();
  const client = dynamoItems() as unknown as {
    middlewareStack: { add(middleware: unknown, options: { step: 'initialize'; name: string }): void };
  };
  const counts = new Map<string, number>();
  type Next = (args: { input: Values }) => Promise<unknown>;
  client.middlewareStack.add(
    (next: Next, context: { commandName?: string }) => async (args: { input: Values }) => {
      for (const partition of writesOf(context.commandName ?? '', args.input))
        counts.set(partition, (counts.get(partition) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: COUNTER },
  );
  return counts;
}

afterEach(() => {
  // The next call builds a client without the counter.
  destroyClients();
});

/** The partitions above `bound`, with their counts (an empty object when none is). */
function over(
  counts: Map<string, number>,
  bound: number,
  except: (partition: string) => boolean = () => false,
): Record<string, number> {
  return Object.fromEntries([...counts].filter(([partition, count]) => count > bound && !except(partition)));
}

/** `count` synthetic advisories on unique npm packages, and an SBOM naming each package once. */
async function vulnerableSbom(count: number): Promise<string> {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  const base = randomInt(1_000_000, 9_000_000);
  const packages = Array.from({ length: count }, (_, index) => ({
    name: `load-${suffix}-lib${index}`,
    version: '1.0.0',
    cve: `CVE-2091-${base + index}`,
  }));
  await importAdvisories(
    packages.map((pkg, index) => ({
      source: 'seed',
      advisory: parseOsvAdvisory({
        id: `GHSA-load-${suffix}-${index}`,
        modified: new Date().toISOString(),
        aliases: [pkg.cve],
        summary: `Load ${index}`,
        details: 'Load',
        affected: [
          {
            package: { ecosystem: 'npm', name: pkg.name },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    })),
  );
  return cycloneDxSbom(
    packages.map((pkg) => ({ name: pkg.name, version: pkg.version, purl: `pkg:npm/${pkg.name}@${pkg.version}` })),
  );
}

/**
 * Writes one partition may take per scan whatever the number of findings. The old
 * layout put one id pointer per finding in the team partition, so a scan with
 * FINDINGS findings sent it more than FINDINGS writes.
 */
const WRITES_PER_PARTITION_PER_SCAN = 10;
const FINDINGS = 120;

describe('partition load', () => {
  it("an upload and its scan send no partition but the product's item collection more than a constant number of writes", async () => {
    const { api, teamId } = await createTeamWithKey();
    const content = await vulnerableSbom(FINDINGS);
    const product = (
      await api.post<{ data: { id: string } }>('/api/products', { name: 'Load', slug: uniqueSlug('load') })
    ).body.data;
    const release = (
      await api.post<{ data: { id: string } }>(`/api/products/${product.id}/releases`, { version: '1.0.0' })
    ).body.data;

    const counts = countWrites();
    const sbom = await Sboms.upload(teamId, OPERATOR_ACTOR, { releaseId: release.id, content, fileName: 'bom.json' });
    const summary = await Scans.run(teamId, OPERATOR_ACTOR, sbom.id);

    expect(summary.findingCount).toBe(FINDINGS);
    // Findings themselves belong to the product's item collection (one Query lists a release's,
    // a product delete walks it); docs/architecture/data-layout.md "Partition load" gives its figure.
    const productCollection = keys.productCollection(teamId, product.id).pk;
    expect(over(counts, WRITES_PER_PARTITION_PER_SCAN, (partition) => partition === productCollection)).toEqual({});
    expect(counts.get(keys.team(teamId).pk) ?? 0).toBeLessThanOrEqual(WRITES_PER_PARTITION_PER_SCAN);
    // Every new finding got its pointer, each in a partition of its own.
    const pointerPartitions = [...counts.keys()].filter((partition) =>
      partition.startsWith(`${keys.team(teamId).pk}#ID#`),
    );
    expect(pointerPartitions.length).toBeGreaterThanOrEqual(FINDINGS);
  });

  it('a bulk audit stream spreads over the shards, in the table and in every audit index', async () => {
    const { teamId } = await createTeamWithKey();
    const events: AuditEvent[] = Array.from({ length: 800 }, (_, index) => ({
      action: 'update',
      entityType: 'disposition',
      entityId: randomUUID(),
      entityName: `CVE-2091-${index}`,
      changes: { index },
    }));

    const counts = countWrites();
    await recordAudit(teamId, OPERATOR_ACTOR, events);

    // Eight shards take 100 each on average; the old single partition took all 800 (and so did each index's).
    const auditPartitions = [...counts].filter(([partition]) => partition.includes(`${keys.team(teamId).pk}#AUDIT`));
    expect(auditPartitions.reduce((sum, [, count]) => sum + count, 0)).toBe(800 * 4);
    expect(over(counts, 200)).toEqual({});
  });
});
