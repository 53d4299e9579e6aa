/**
 * A whole-archive OSV refresh killed in the middle of an import unit resumes where it stopped: the
 * refresh runs in a process of its own (test/support/refresh-child.ts) and is SIGKILLed once its
 * first checkpoints are stored; the next run goes on from the stored entry index of the staged copy,
 * not from the start, and every record ends up in the corpus exactly once as a scan reads it (no
 * duplicate entry in a package's item or sealed segments, none missing; the kill may fall between a
 * segment's write and its package item's); the archive's bucket fingerprints are recorded only by the run that
 * completes it. The ecosystem (Hex) is this file's alone.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { runAsFunction } from '../../shared/service/aws-call-log';
import { keys } from '../../shared/service/data/keys';
import { batchGet, batchWrite } from '../../shared/service/data/table-client';
import { readFeedStates } from '../../shared/service/corpus/feed-state';
import { refreshCorpus } from '../../shared/service/corpus/refresh';
import { BUCKETS } from '../../shared/service/corpus/archive-fingerprints';
import { corpusStore, packageItemKey } from '../../shared/service/corpus/corpus-store';
import { packageKey } from '../../shared/service/matching/component-identity';
import { awsCallLog } from '../support/server-process';
import { osvRecord, publishEcosystem, startFeedServer, type FeedServer } from '../support/feed-server';

const ROOT = resolve(import.meta.dirname, '../..');
const ECOSYSTEM = 'Hex';
const RECORDS = 1_200;
const PACKAGES = 300;
const CHECKPOINT = 100;
const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
const name = (index: number) => `resume_${suffix}_${index % PACKAGES}`;
// Records of about 3 KB: a package's third outgrows its package item, so the run seals segments as it goes.
const records = Array.from({ length: RECORDS }, (_, index) =>
  osvRecord(
    `GHSA-res${suffix.slice(0, 4)}-${suffix.slice(4)}-${index}`,
    '2026-11-20T10:00:00Z',
    { ecosystem: ECOSYSTEM, name: name(index), fixed: `1.${index}.0` },
    { summary: `Fixture advisory ${index} ${'r'.repeat(3000)}` },
  ),
);

let server: FeedServer;

beforeAll(async () => {
  server = await startFeedServer();
  publishEcosystem(server, ECOSYSTEM, records);
});

afterAll(async () => {
  await server.close();
});

/** The stored bucket fingerprints of the staged archive (shared/service/corpus/archive-fingerprints.ts). */
const fingerprintItems = () =>
  batchGet(
    Array.from({ length: BUCKETS / 512 }, (_, part) =>
      keys.corpusArchiveFingerprints(keys.corpusArchiveObject(ECOSYSTEM), part),
    ),
  );

async function archiveState() {
  return (await readFeedStates([{ source: 'osv', ecosystem: ECOSYSTEM }])).get(`osv/${ECOSYSTEM}`);
}

/** Starts the refresh in its own process and SIGKILLs it once `atLeast` entries are checkpointed. */
async function killMidImport(atLeast: number): Promise<number> {
  // node with tsx's loader, not the tsx CLI (which runs the script in a child that would outlive the kill).
  const child = spawn(
    process.execPath,
    ['--import', 'tsx/esm', resolve(ROOT, 'test/support/refresh-child.ts'), server.base, ECOSYSTEM, String(CHECKPOINT)],
    { cwd: ROOT, env: { ...process.env, ...awsCallLog(), POWERTOOLS_LOG_LEVEL: 'ERROR' }, stdio: 'ignore' },
  );
  const exited = new Promise((done) => child.once('exit', done));
  const deadline = Date.now() + 50_000;
  for (;;) {
    const next = (await archiveState())?.archive?.next ?? 0;
    if (next >= atLeast) {
      child.kill('SIGKILL');
      await exited;
      return next;
    }
    if (child.exitCode !== null) throw new Error(`the refresh ended (${child.exitCode}) before it was killed`);
    if (Date.now() > deadline) throw new Error('no checkpoint within 50 s');
    await new Promise((done) => setTimeout(done, 25));
  }
}

describe('resumable archive import', () => {
  test('a refresh killed mid-import resumes from its checkpoint; every record once, none missing', async () => {
    const killedAt = await killMidImport(2 * CHECKPOINT);
    expect(killedAt).toBeLessThan(RECORDS);
    expect(await fingerprintItems()).toHaveLength(0);
    // The killed run's lease would expire after the function's longest run; the test does not wait for it.
    await batchWrite([], [keys.corpusFeedLease(`osv/${ECOSYSTEM}`)]);

    const resumed = (await runAsFunction('corpus-refresh', () =>
      refreshCorpus(
        { osv: { baseUrl: server.base, ecosystems: [ECOSYSTEM] }, kev: undefined, epss: undefined },
        { checkpointRecords: CHECKPOINT },
      ),
    )) as Record<string, Record<string, unknown>>;
    const result = resumed[`osv/${ECOSYSTEM}`]!;
    // Not from the start, and not from before the last stored checkpoint.
    expect(result).toMatchObject({ mode: 'full', reason: 'first run', entries: RECORDS });
    expect(Number(result.from)).toBeGreaterThanOrEqual(killedAt);
    expect(resumed.pending).toBeUndefined();

    const state = await archiveState();
    expect(state?.archive).toBeUndefined();
    expect(state).toMatchObject({ records: RECORDS, cursor: '2026-11-20T10:00:00.000000000Z' });
    expect(state?.lastSuccessAt).toBeDefined();
    expect(await fingerprintItems()).toHaveLength(BUCKETS / 512);

    const stored = await batchGet(records.map((record) => keys.corpusAdvisory(record.id)));
    expect(stored).toHaveLength(RECORDS);
    const packageKeys = Array.from({ length: PACKAGES }, (_, index) => packageKey(ECOSYSTEM, name(index)));
    const packages = await batchGet(packageKeys.map(packageItemKey));
    expect(packages).toHaveLength(PACKAGES);
    expect(packages.filter((item) => Number(item.sealedSegments) > 0).length).toBeGreaterThan(PACKAGES / 2);
    // As a scan reads them: the package items' entries and their sealed segments'.
    const ids = [...(await corpusStore.packages(packageKeys)).values()].flat().map((entry) => entry.id);
    expect(ids).toHaveLength(RECORDS);
    expect(new Set(ids).size).toBe(RECORDS);
  });

  test('a continuation run with no archive under way does nothing', async () => {
    const result = await runAsFunction('corpus-refresh', () =>
      refreshCorpus(
        { osv: { baseUrl: server.base, ecosystems: [ECOSYSTEM] }, kev: undefined, epss: undefined },
        { continuationOnly: true },
      ),
    );
    expect(result).toEqual({});
  });
});
