/**
 * A disposition batch cut by a real crash: the server process (bin/start.ts
 * with its embedded engines) is SIGKILLed once the batch's first chunks are in
 * the table, then restarted on the same data directory. Contract: once the
 * restarted server reports ready, every batch is all or nothing — rolled
 * forward, or rolled back if a release got locked — and revision = history =
 * audit for every disposition. The table is read directly (not through the
 * API, whose reads would finish pending batches themselves) so the check sees
 * what the start-up recovery left.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/service/data/keys';
import { tableDefinition } from '../../shared/service/data/table-definition';
import { readEngineCredentials } from '../../shared/local/engine-credentials';
import { adminBundle } from '../support/server-bundle';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { cycloneDxSbom } from '../support/seed';
import { dispositionInvariantViolations } from '../support/disposition-invariants';

type Item = Record<string, unknown>;
const ROOT = resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Reads the killed-and-restarted server's own table (its engines live in its process, on new ports after a restart). */
async function rawTable(dataDir: string) {
  const { dynamoEndpoint } = JSON.parse(readFileSync(join(dataDir, 'engines.json'), 'utf8')) as {
    dynamoEndpoint: string;
  };
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(dynamoEndpoint)) throw new Error(`refusing ${dynamoEndpoint}`);
  // The engines accept only their data directory's own key pair.
  const credentials = await readEngineCredentials(dataDir);
  if (!credentials) throw new Error(`no engine credentials in ${dataDir}`);
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials }),
  );
  const query = async (pk: string, skPrefix: string): Promise<Item[]> => {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableDefinition.localTableName,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        }),
      );
      items.push(...((page.Items ?? []) as Item[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  };
  return { client, query };
}

async function call(server: ServerProcess, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON
}

/** Imports `count` synthetic advisories into the server's corpus with the admin CLI, as an operator would. */
async function importAdvisories(dataDir: string, names: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vexdesk-osv-'));
  const base = randomInt(1_000_000, 9_000_000);
  names.forEach((name, index) =>
    writeFileSync(
      join(dir, `${name}.json`),
      JSON.stringify({
        id: `GHSA-crash-${name}`,
        modified: new Date().toISOString(),
        aliases: [`CVE-2091-${base + index}`],
        summary: 'Crash test',
        details: 'Crash test',
        affected: [
          {
            package: { ecosystem: 'npm', name },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    ),
  );
  const child = spawn(process.execPath, [await adminBundle(), 'corpus', 'import', dir], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`corpus import exited with ${String(code)}`);
}

async function seedRelease(
  server: ServerProcess,
  key: string,
  dataDir: string,
  productId: string,
  version: string,
  count: number,
) {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
  const names = Array.from({ length: count }, (_, index) => `crash-${suffix}-lib${index}`);
  await importAdvisories(dataDir, names);
  const release = (await call(server, key, 'POST', `/api/products/${productId}/releases`, { version })).body.data;
  const content = cycloneDxSbom(names.map((name) => ({ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` })));
  const sbom = (
    await call(server, key, 'POST', '/api/sboms/upload', { releaseId: release.id, content, fileName: 'bom.json' })
  ).body.data;
  const scan = await call(server, key, 'POST', '/api/cve-scan', { sbomId: sbom.id });
  if (scan.body.data?.findingCount !== count)
    throw new Error(`seed scan found ${String(scan.body.data?.findingCount)} of ${count}`);
  const ids = (
    (await call(server, key, 'GET', `/api/sboms/${sbom.id}/vulnerabilities?perPage=500`)).body.data as { id: string }[]
  ).map((finding) => finding.id);
  return { release, sbom, ids };
}

/** kill -9 of the server itself (`server.child` is the server process), then waits until it is gone. */
async function killHard(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((done) => server.child.once('exit', done));
  server.child.kill('SIGKILL');
  await exited;
}

/** Starts the batch, and SIGKILLs the server once the table holds its first two chunks (38 dispositions written by it). */
async function crashMidBatch(
  server: ServerProcess,
  key: string,
  dataDir: string,
  watched: { pk: string; skPrefix: string },
  body: { detail: string } & Record<string, unknown>,
  beforeKill: () => Promise<void> = async () => {},
) {
  const table = await rawTable(dataDir);
  let answered: number | undefined;
  const batch = call(server, key, 'POST', '/api/dispositions/batch', body).then(
    (response) => {
      answered = response.status;
    },
    () => undefined,
  );
  let written = 0;
  while (written < 38 && answered === undefined) {
    written = (await table.query(watched.pk, watched.skPrefix)).filter((item) => item.detail === body.detail).length;
    if (written < 38) await sleep(5);
  }
  await beforeKill();
  await killHard(server);
  await batch;
  table.client.destroy();
  return { answered, writtenAtKill: written };
}

async function storedState(dataDir: string, teamId: string, productId: string, releaseIds: string[]) {
  const table = await rawTable(dataDir);
  try {
    const children = (
      await Promise.all(
        releaseIds.map((releaseId) => {
          const { pk, skPrefix } = keys.releaseChildrenPrefix(teamId, productId, releaseId);
          return table.query(pk, skPrefix);
        }),
      )
    ).flat();
    return {
      dispositions: children.filter((item) => item.entity === 'Disposition'),
      history: children.filter((item) => item.entity === 'DispositionChange'),
      // One range per audit shard, merged in time order as the export reads them.
      audit: (await Promise.all(keys.auditPartitions(teamId).map(({ pk }) => table.query(pk, ''))))
        .flat()
        .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1)),
      pending: await table.query(
        keys.dispositionBatchPendingPrefix(teamId).pk,
        keys.dispositionBatchPendingPrefix(teamId).skPrefix,
      ),
      outcomes: await table.query(keys.team(teamId).pk, 'DISPOSITION_BATCH#'),
    };
  } finally {
    table.client.destroy();
  }
}

describe('disposition batch cut by a crash', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-batch-crash-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('is all or nothing once the restarted server is ready: rolled forward, or rolled back when a release was locked meanwhile', async () => {
    // Arrange: the demo team of a fresh server, two releases of 300 and 200 findings.
    mkdirSync(dataDir, { recursive: true });
    server = await startServerProcess(dataDir, {});
    const { apiKey: key, teamId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      apiKey: string;
      teamId: string;
    };
    const product = (await call(server, key, 'POST', '/api/products', { name: 'Crash', slug: 'crash-batch' })).body
      .data;
    const first = await seedRelease(server, key, dataDir, product.id, '1.0.0', 300);
    const second = await seedRelease(server, key, dataDir, product.id, '2.0.0', 200);
    const releaseIds = [first.release.id, second.release.id];

    // Act 1: a 300-item batch (16 chunks) killed after its first chunks, then a restart.
    const watched = keys.dispositionPrefix(teamId, product.id, first.release.id);
    const forward = await crashMidBatch(server, key, dataDir, watched, {
      vulnerabilityIds: first.ids,
      status: 'not_affected',
      justification: 'component_not_present',
      detail: 'batch-1',
    });
    expect(forward.answered).toBeUndefined();
    server = await startServerProcess(dataDir, {});

    // Assert 1: rolled forward: every disposition written once, nothing pending.
    const afterForward = await storedState(dataDir, teamId, product.id, releaseIds);
    expect(afterForward.dispositions).toHaveLength(300);
    expect(afterForward.dispositions.every((item) => item.detail === 'batch-1' && item.revision === 1)).toBe(true);
    expect(dispositionInvariantViolations(afterForward)).toEqual([]);
    expect(afterForward.pending).toEqual([]);
    expect(afterForward.outcomes.map((outcome) => outcome.state)).toEqual(['committed']);

    // Act 2: a 500-item batch over both releases; the second release is locked mid-batch, just before the kill.
    const document = (await call(server, key, 'POST', `/api/releases/${second.release.id}/vex`, { format: 'openvex' }))
      .body.data;
    let submitted = 0;
    const backward = await crashMidBatch(
      server,
      key,
      dataDir,
      watched,
      { vulnerabilityIds: [...first.ids, ...second.ids], status: 'fixed', detail: 'batch-2' },
      async () => {
        submitted = (await call(server!, key, 'POST', `/api/vex/${document.id}/submit`, {})).status;
      },
    );
    expect(submitted).toBe(200);
    expect(backward.answered).toBeUndefined();
    server = await startServerProcess(dataDir, {});

    // Assert 2: rolled back: the first batch's state is back, the second release has nothing, history tells it all.
    const afterBackward = await storedState(dataDir, teamId, product.id, releaseIds);
    expect(afterBackward.dispositions).toHaveLength(300);
    expect(
      afterBackward.dispositions.every((item) => item.detail === 'batch-1' && item.status === 'not_affected'),
    ).toBe(true);
    expect(dispositionInvariantViolations(afterBackward)).toEqual([]);
    expect(afterBackward.pending).toEqual([]);
    expect(afterBackward.outcomes.map((outcome) => outcome.state).sort()).toEqual(['committed', 'failed']);
    expect(afterBackward.audit.filter((entry) => entry.action === 'rollback').length).toBeGreaterThanOrEqual(
      backward.writtenAtKill,
    );

    // And the API answers what the table holds.
    const listed = await call(server, key, 'GET', `/api/sboms/${first.sbom.id}/vulnerabilities`);
    expect(listed.body.summary).toMatchObject({ total: 300, notAffected: 300 });
  }, 480_000);
});
