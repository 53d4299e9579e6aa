/**
 * Recovery after a crash (docs/architecture/background-work.md): the real server process is
 * killed with SIGKILL mid-work and started again on the same data directory.
 * Contract: after a restart, every acknowledged upload's scan completes
 * without a client call, a not-yet-scanned SBOM's vulnerability list says so,
 * and no SBOM object lacks its item once the server reports ready.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { keys } from '../../shared/service/data/keys';
import { readEngineCredentials } from '../../shared/local/engine-credentials';
import { awsCallLog } from '../support/server-process';
import { serverBundle, startNodeFlags } from '../support/server-bundle';
import { bucketDefinitions, tableDefinition } from '../../shared/service/data/table-definition';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/sboms');
const KEV_SAMPLE = join(ROOT, 'shared/service/corpus/sample/kev/known_exploited_vulnerabilities.json');

/** Clients for one data directory's engines (this worker's shared clients point at the suite's server). */
async function enginesOf(dataDir: string) {
  const { dynamoEndpoint, s3Endpoint } = JSON.parse(readFileSync(join(dataDir, 'engines.json'), 'utf8')) as {
    dynamoEndpoint: string;
    s3Endpoint: string;
  };
  // The engines accept only their data directory's own key pair.
  const credentials = await readEngineCredentials(dataDir);
  if (!credentials) throw new Error(`no engine credentials in ${dataDir}`);
  const dynamo = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint: dynamoEndpoint, credentials }),
  );
  const s3 = new S3Client({ region: 'us-east-1', endpoint: s3Endpoint, forcePathStyle: true, credentials });
  return {
    get: async (key: { pk: string; sk: string }) =>
      (await dynamo.send(new GetCommand({ TableName: tableDefinition.localTableName, Key: key, ConsistentRead: true })))
        .Item,
    countPresent: async (itemKeys: { pk: string; sk: string }[]) => {
      let present = 0;
      for (let offset = 0; offset < itemKeys.length; offset += 100) {
        const response = await dynamo.send(
          new BatchGetCommand({
            RequestItems: { [tableDefinition.localTableName]: { Keys: itemKeys.slice(offset, offset + 100) } },
          }),
        );
        present += response.Responses?.[tableDefinition.localTableName]?.length ?? 0;
        expect(response.UnprocessedKeys?.[tableDefinition.localTableName]).toBeUndefined();
      }
      return present;
    },
    sbomObjectKeys: async () => {
      const found: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({
            Bucket: bucketDefinitions.sbom.localBucketName,
            Prefix: 'teams/',
            ContinuationToken: token,
          }),
        );
        found.push(...(page.Contents ?? []).map((object) => object.Key ?? '').filter((key) => key.includes('/sboms/')));
        token = page.NextContinuationToken;
      } while (token);
      return found;
    },
    close: () => {
      dynamo.destroy();
      s3.destroy();
    },
  };
}

/**
 * Starts `bin/start.ts` (bundled, test/support/server-bundle.ts) in the server process itself: a
 * wrapper such as the tsx CLI would run the server as a grandchild that a SIGKILL of the wrapper
 * leaves running, which is no crash at all.
 */
async function spawnServer(dataDir: string): Promise<ChildProcess> {
  rmSync(join(dataDir, 'server.json'), { force: true });
  const child = spawn(process.execPath, [...startNodeFlags(), await serverBundle()], {
    cwd: ROOT,
    env: { ...process.env, ...awsCallLog(), DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  started.add(child);
  return child;
}

/** Every server this file started; whatever a failed test left running is killed after the file. */
const started = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all([...started].map((child) => killHard(child)));
});

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Starts the server and waits until it serves (it writes server.json only then). */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = await spawnServer(dataDir);
  const deadline = Date.now() + 120_000;
  while (!existsSync(join(dataDir, 'server.json'))) {
    if (child.exitCode !== null) throw new Error(`local server exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      await killHard(child);
      throw new Error('local server did not start within 120 s');
    }
    await sleep(100);
  }
  // Written with a plain writeFile: wait until it is complete.
  for (;;) {
    try {
      const { baseUrl } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { baseUrl: string };
      return { child, baseUrl };
    } catch {
      await sleep(50);
    }
  }
}

/** Graceful stop (SIGTERM), bounded. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000)]);
  await killHard(child);
}

/** Table reads before the first start has created the table answer ResourceNotFound: nothing there yet. */
async function tableReady<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON
}

describe('recovery after a crash (SIGKILL of the real server)', () => {
  it('completes the KEV import on the next start when the first start was killed in the middle of it', async () => {
    const kev = JSON.parse(readFileSync(KEV_SAMPLE, 'utf8')) as { vulnerabilities: { cveID: string }[] };
    const kevKeys = kev.vulnerabilities.map((entry) => keys.corpusKev(entry.cveID));
    // The kill has to land inside the KEV import; on a machine fast enough to finish it first, try again.
    let dataDir = '';
    for (let attempt = 0; attempt < 3 && !dataDir; attempt += 1) {
      const candidate = mkdtempSync(join(tmpdir(), 'vexdesk-corpus-crash-'));
      const child = await spawnServer(candidate);
      try {
        while (!existsSync(join(candidate, 'engines.json'))) {
          if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
          await sleep(20);
        }
        const engines = await enginesOf(candidate);
        try {
          while (!(await tableReady(() => engines.get(kevKeys[0]!)))) {
            if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
            await sleep(10);
          }
          // The first KEV item is written: kill now, unless the whole import already finished.
          if (!(await engines.get(keys.corpusSourceImport('kev')))) {
            await killHard(child);
            dataDir = candidate;
          }
        } finally {
          engines.close();
        }
      } finally {
        await killHard(child);
      }
    }
    expect(dataDir).not.toBe('');

    const second = await startServer(dataDir);
    const engines = await enginesOf(dataDir);
    try {
      expect(await engines.countPresent(kevKeys)).toBe(kevKeys.length);
      expect(await engines.get(keys.corpusSourceImport('kev'))).toMatchObject({ source: 'kev' });
      expect(await engines.get(keys.corpusSourceImport('osv'))).toMatchObject({ source: 'osv' });
    } finally {
      engines.close();
      await stopServer(second.child);
    }
  }, 300_000);

  it('resumes every acknowledged scan, says "not scanned" until then, and leaves no SBOM object without its item', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-scan-crash-'));
    const first = await startServer(dataDir);
    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const spring = readFileSync(join(FIXTURES, 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8');
    const plone = readFileSync(join(FIXTURES, 'cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json'), 'utf8');
    const acknowledged: string[] = [];
    const product = (await call(first.baseUrl, apiKey, 'POST', '/api/products', { name: 'Crash', slug: 'crash' })).body
      .data;
    const release = (
      await call(first.baseUrl, apiKey, 'POST', `/api/products/${product.id}/releases`, { version: '1.0.0' })
    ).body.data;
    /** Twelve uploads at once; the ones cut off by the kill are never acknowledged. */
    // Every upload is a new build's SBOM (its own serial number): identical bytes would be answered with the stored SBOM and write no file.
    const asNewBuild = (sbom: string) =>
      JSON.stringify({ ...JSON.parse(sbom), serialNumber: `urn:uuid:${randomUUID()}` });
    const uploadBurst = (baseUrl: string) =>
      Array.from({ length: 12 }, (_, index) =>
        call(baseUrl, apiKey, 'POST', '/api/sboms/upload', {
          releaseId: release.id,
          content: asNewBuild(index % 3 === 2 ? plone : spring),
        })
          .then((response) => {
            if (response.status === 201) acknowledged.push(response.body.data.id);
          })
          .catch(() => undefined),
      );
    const statusesOf = (baseUrl: string, ids: string[]) =>
      Promise.all(
        ids.map(async (id) => (await call(baseUrl, apiKey, 'GET', `/api/sboms/${id}`)).body.data.scan.status as string),
      );

    // Crash 1, aimed at scans: killed while an acknowledged upload's scan has not completed.
    let unscannedAtKill = 0;
    try {
      const uploads = uploadBurst(first.baseUrl);
      for (const stop = Date.now() + 120_000; unscannedAtKill === 0 && Date.now() < stop;) {
        if (acknowledged.length > 0)
          unscannedAtKill = (await statusesOf(first.baseUrl, [...acknowledged])).filter(
            (status) => status !== 'completed',
          ).length;
        else await sleep(5);
      }
      await killHard(first.child);
      await Promise.all(uploads);
    } finally {
      await killHard(first.child);
    }
    expect(unscannedAtKill).toBeGreaterThan(0);

    // Crash 2, aimed at uploads: killed once an upload has written its files but is not acknowledged.
    const middle = await startServer(dataDir);
    let unacknowledgedFiles = false;
    try {
      const uploads = uploadBurst(middle.baseUrl);
      const engines = await enginesOf(dataDir);
      try {
        for (const stop = Date.now() + 60_000; !unacknowledgedFiles && Date.now() < stop;) {
          const ids = (await engines.sbomObjectKeys()).map((key) => /\/sboms\/([0-9a-f-]{36})/.exec(key)?.[1]);
          unacknowledgedFiles = ids.some((id) => id !== undefined && !acknowledged.includes(id));
        }
        await killHard(middle.child);
      } finally {
        engines.close();
      }
      await Promise.all(uploads);
    } finally {
      await killHard(middle.child);
    }
    expect(unacknowledgedFiles).toBe(true);

    const second = await startServer(dataDir);
    const engines = await enginesOf(dataDir);
    try {
      // Ready: no SBOM object without its item (uploads cut off between their files and their transaction).
      const orphans = [];
      for (const objectKey of await engines.sbomObjectKeys()) {
        const sbomId = /\/sboms\/([0-9a-f-]{36})/.exec(objectKey)?.[1] ?? objectKey;
        if ((await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${sbomId}`)).status !== 200) orphans.push(objectKey);
      }
      expect(orphans).toEqual([]);

      // Until its scan completes, a list says "not scanned"; a 200 only ever comes with a completed scan.
      for (const id of acknowledged) {
        const list = await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${id}/vulnerabilities`);
        if (list.status === 200) expect(list.body.scan.status).toBe('completed');
        else expect(list).toMatchObject({ status: 409, body: { error: { code: 'scan_pending' } } });
      }

      // Every acknowledged upload's scan completes with no client call.
      const deadline = Date.now() + 120_000;
      const pending = new Set(acknowledged);
      while (pending.size > 0 && Date.now() < deadline) {
        for (const id of [...pending]) {
          if ((await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${id}`)).body.data.scan.status === 'completed')
            pending.delete(id);
        }
        if (pending.size > 0) await sleep(250);
      }
      expect([...pending]).toEqual([]);
      for (const id of acknowledged) {
        const list = await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${id}/vulnerabilities`);
        expect(list.status).toBe(200);
        expect(list.body.summary.total).toBe(list.body.scan.finding_count);
      }
      const springIds = [];
      for (const id of acknowledged)
        if ((await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${id}`)).body.data.component_count === 88)
          springIds.push(id);
      for (const id of springIds)
        expect(
          (await call(second.baseUrl, apiKey, 'GET', `/api/sboms/${id}/vulnerabilities`)).body.summary.total,
        ).toBeGreaterThan(0);
    } finally {
      engines.close();
      await stopServer(second.child);
    }
  }, 300_000);
});
