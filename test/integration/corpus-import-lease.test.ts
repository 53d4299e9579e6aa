/**
 * `admin corpus import` holds the leases of the feeds it writes (shared/service/corpus/refresh-lease.ts):
 * it refuses to start while a refresh holds one and writes nothing, the scheduled refresh cannot take
 * them while it runs, it renews them while it works, and it stops once another run took one.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem } from '../../shared/service/data/table-client';
import {
  FeedLeaseLostError,
  FeedsBusyError,
  holdingFeeds,
  refreshLease,
} from '../../shared/service/corpus/refresh-lease';
import { adminBundle } from '../support/server-bundle';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const uniqueFeed = () => `test/lease-${randomUUID().slice(0, 8)}`;

async function adminImport(path: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
  try {
    const { stdout, stderr } = await run(process.execPath, [await adminBundle(), 'corpus', 'import', path], {
      cwd: root,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function osvDirectory(id: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'osv-lease-'));
  writeFileSync(
    join(dir, `${id}.json`),
    JSON.stringify({
      schema_version: '1.6.0',
      id,
      modified: new Date().toISOString(),
      summary: 'Lease fixture',
      affected: [
        {
          package: { ecosystem: 'npm', name: `lease-pkg-${id}` },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] }],
        },
      ],
    }),
  );
  return dir;
}

describe('the admin import holds the feeds it writes', () => {
  it('refuses to start while a refresh holds one of its feeds, and writes nothing', async () => {
    const id = `GHSA-lease-${randomUUID().slice(0, 8)}`;
    const dir = osvDirectory(id);
    const refresh = await refreshLease.take('osv/npm', new Date());
    expect(refresh).not.toBeNull();
    try {
      const refused = await adminImport(dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('osv/npm');
      expect(await getItem(keys.corpusAdvisory(id))).toBeUndefined();
    } finally {
      await refreshLease.release(refresh!);
    }
    const imported = await adminImport(dir);
    expect(imported.code).toBe(0);
    expect((JSON.parse(imported.stdout) as { imported: { written: number }[] }).imported[0]?.written).toBe(1);
    // Given back at the end: a refresh may take the feed again.
    const after = await refreshLease.take('osv/npm', new Date());
    expect(after).not.toBeNull();
    await refreshLease.release(after!);
  }, 120_000);

  it('keeps the leases while it works, renewing them, and gives them back', async () => {
    const feeds = [uniqueFeed(), uniqueFeed()];
    const expiries: number[] = [];
    await holdingFeeds(
      feeds,
      async (held) => {
        expect(await refreshLease.take(feeds[1]!, new Date())).toBeNull();
        for (let tick = 0; tick < 3; tick += 1) {
          expiries.push(Number((await getItem(keys.corpusFeedLease(feeds[0]!)))?.expiresAt));
          await sleep(120);
        }
        held.assertHeld();
      },
      { renewEveryMs: 50 },
    );
    expect(expiries[2]).toBeGreaterThan(expiries[0]!);
    for (const feed of feeds) expect(await getItem(keys.corpusFeedLease(feed))).toBeUndefined();
    await expect(holdingFeeds(feeds, () => Promise.resolve('ran'))).resolves.toBe('ran');
  });

  it('stops once another run took a lease, and does not start while one is held', async () => {
    const feed = uniqueFeed();
    await expect(
      holdingFeeds(
        [feed],
        async (held) => {
          // The lease expired and another run took it.
          await batchWrite(
            [
              {
                ...keys.corpusFeedLease(feed),
                entity: 'CorpusFeedLease',
                holder: 'other',
                expiresAt: Date.now() + 60_000,
              },
            ],
            [],
          );
          await sleep(300);
          held.assertHeld();
        },
        { renewEveryMs: 50 },
      ),
    ).rejects.toBeInstanceOf(FeedLeaseLostError);
    // The other run's lease stays, and a new import is refused while it holds it.
    expect((await getItem(keys.corpusFeedLease(feed)))?.holder).toBe('other');
    await expect(holdingFeeds([feed], () => Promise.resolve('ran'))).rejects.toBeInstanceOf(FeedsBusyError);
  });
});
