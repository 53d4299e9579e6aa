/**
 * The incremental OSV refresh against a loopback stand-in for OSV's bucket
 * (test/support/feed-server.ts): the first run takes all.zip, later runs read modified_id.csv
 * and download only the records modified since the last success; a record that cannot be
 * downloaded or checked fails the ecosystem, leaving its mark and its corpus as they were, and
 * `GET /api/corpus/status` shows the times and the error. The tests run in order: each starts
 * from the corpus the previous one left. The ecosystem (Pub) is this file's alone.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { runAsFunction } from '../../shared/service/aws-call-log';
import { keys } from '../../shared/service/data/keys';
import { batchGet } from '../../shared/service/data/table-client';
import { readFeedStates } from '../../shared/service/corpus/feed-state';
import { DEFAULT_OSV_LIMITS } from '../../shared/service/corpus/osv-feed';
import { refreshCorpus, type RefreshOptions } from '../../shared/service/corpus/refresh';
import { corpusStatusResponse } from '../../shared/service/schemas/corpus';
import { createTeamWithKey } from '../support/factories';
import { request } from '../support/http-client';
import { osvRecord, publishEcosystem, startFeedServer, type FeedServer } from '../support/feed-server';

const ECOSYSTEM = 'Pub';
const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
const id = (letter: string) => `GHSA-feed-${letter}${suffix.slice(0, 3)}-${suffix.slice(3, 7)}`;
const record = (letter: string, modified: string, fixed = '1.0.0', extra: Record<string, unknown> = {}) =>
  osvRecord(id(letter), modified, { ecosystem: ECOSYSTEM, name: `feed_fixture_${letter}_${suffix}`, fixed }, extra);

let server: FeedServer;

beforeAll(async () => {
  server = await startFeedServer();
});

afterAll(async () => {
  await server.close();
});

function refresh(options: RefreshOptions = {}) {
  return runAsFunction('corpus-refresh', () =>
    refreshCorpus({ osv: { baseUrl: server.base, ecosystems: [ECOSYSTEM] }, kev: undefined, epss: undefined }, options),
  );
}

/** The stored `modified` of each advisory (undefined: not in the corpus). */
async function stored(...letters: string[]): Promise<Record<string, unknown>> {
  const items = await batchGet(letters.map((letter) => keys.corpusAdvisory(id(letter))));
  return Object.fromEntries(
    letters.map((letter) => [letter, items.find((item) => item.advisoryId === id(letter))?.modified]),
  );
}

async function state() {
  return (await readFeedStates([{ source: 'osv', ecosystem: ECOSYSTEM }])).get(`osv/${ECOSYSTEM}`);
}

/** The paths this run asked the bucket for, sorted (records download in parallel). */
function requested(): string[] {
  return server.requests.map((entry) => entry.path).sort();
}

async function run(options: RefreshOptions = {}) {
  server.requests.length = 0;
  return (await refresh(options))[`osv/${ECOSYSTEM}`];
}

const A = record('a', '2026-11-01T10:00:00Z');
const B = record('b', '2026-11-01T10:01:00Z');
const changedB = record('b', '2026-11-01T11:00:00Z', '2.0.0');

describe('incremental OSV refresh', () => {
  test('the first run takes the whole all.zip', async () => {
    publishEcosystem(server, ECOSYSTEM, [A, B]);
    expect(await run()).toMatchObject({ mode: 'full', reason: 'first run', entries: 2, written: 2 });
    expect(requested()).toEqual([`/${ECOSYSTEM}/all.zip`, `/${ECOSYSTEM}/modified_id.csv`]);
    expect(await stored('a', 'b')).toEqual({ a: A.modified, b: B.modified });
    expect(await state()).toMatchObject({ cursor: '2026-11-01T10:01:00.000000000Z', records: 2 });
  });

  test('the next run downloads only the records modified since, and one listed late within the overlap', async () => {
    // RFC 3339 with a fraction, as OSV's exporter writes it when the time has one.
    const newC = record('c', '2026-11-01T11:00:01.5Z');
    // Modified before the cursor, but listed only now (the previous export missed it): still fetched.
    const lateE = record('e', '2026-11-01T10:00:30Z');
    publishEcosystem(server, ECOSYSTEM, [A, changedB, newC, lateE]);
    expect(await run()).toMatchObject({ mode: 'changes', records: 3, written: 3 });
    // A is unchanged (its stored `modified` is the listed one): not downloaded; all.zip neither.
    expect(requested()).toEqual(
      [`/${ECOSYSTEM}/modified_id.csv`, ...['b', 'c', 'e'].map((letter) => `/${ECOSYSTEM}/${id(letter)}.json`)].sort(),
    );
    expect(await stored('a', 'b', 'c', 'e')).toEqual({
      a: A.modified,
      b: changedB.modified,
      c: newC.modified,
      e: lateE.modified,
    });
    expect(await state()).toMatchObject({ cursor: '2026-11-01T11:00:01.500000000Z', records: 3 });

    // Nothing new: the listing answers 304 to its ETag, nothing else is asked for.
    expect(await run()).toEqual({ mode: 'unchanged', records: 0 });
    expect(server.requests).toEqual([{ path: `/${ECOSYSTEM}/modified_id.csv`, status: 304 }]);
  });

  const changedC = record('c', '2026-11-01T12:00:00Z', '3.0.0');
  const newD = record('d', '2026-11-01T12:00:01Z');

  test.each([
    ['answers HTTP 500', () => (server.files.get(`/${ECOSYSTEM}/${id('d')}.json`)!.behaviour = 'http-500'), /HTTP 500/],
    [
      'holds another record',
      () => (server.files.get(`/${ECOSYSTEM}/${id('d')}.json`)!.body = Buffer.from(JSON.stringify(changedC))),
      /holds record "GHSA-feed-c.*", listed as GHSA-feed-d/,
    ],
    [
      'is cut short',
      () => (server.files.get(`/${ECOSYSTEM}/${id('d')}.json`)!.behaviour = 'truncated'),
      /not a readable OSV record/,
    ],
  ])('a record that %s fails the ecosystem: mark and corpus stay as they were', async (_name, breakIt, message) => {
    publishEcosystem(server, ECOSYSTEM, [A, changedB, changedC, newD]);
    breakIt();
    const before = await state();
    await expect(refresh()).rejects.toThrow(message);
    // C downloaded fine, but nothing of a failed ecosystem is imported.
    expect(await stored('c', 'd')).toEqual({ c: '2026-11-01T11:00:01.5Z', d: undefined });
    const after = await state();
    expect(after).toMatchObject({
      cursor: before?.cursor,
      lastSuccessAt: before?.lastSuccessAt,
      lastError: expect.stringMatching(message),
    });
    expect(String(after?.lastAttemptAt) > String(before?.lastAttemptAt)).toBe(true);
  });

  test('GET /api/corpus/status shows each feed with its times and last error, to any credential', async () => {
    const team = await createTeamWithKey(['products:read']);
    const response = await team.api.get('/api/corpus/status');
    expect(response.status).toBe(200);
    const parsed = corpusStatusResponse.safeParse(response.body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data).toEqual(response.body);
    const saved = await state();
    expect(response.body.data.sources.find((source: { ecosystem?: string }) => source.ecosystem === ECOSYSTEM)).toEqual(
      {
        source: 'osv',
        ecosystem: ECOSYSTEM,
        last_success_at: saved?.lastSuccessAt,
        last_attempt_at: saved?.lastAttemptAt,
        last_error: expect.stringMatching(/not a readable OSV record/),
        // The last success was the run that found nothing new.
        records: 0,
      },
    );
    expect((await request('GET', '/api/corpus/status')).status).toBe(401);
  });

  test('the next run retries the same changes and takes them in', async () => {
    publishEcosystem(server, ECOSYSTEM, [A, changedB, changedC, newD]);
    expect(await run()).toMatchObject({ mode: 'changes', records: 2, written: 2 });
    expect(await stored('c', 'd')).toEqual({ c: changedC.modified, d: newD.modified });
    const after = await state();
    expect(after).toMatchObject({ cursor: '2026-11-01T12:00:01.000000000Z', records: 2 });
    expect(after?.lastError).toBeUndefined();
    const team = await createTeamWithKey(['vex:read']);
    const status = await team.api.get('/api/corpus/status');
    expect(
      status.body.data.sources.find((source: { ecosystem?: string }) => source.ecosystem === ECOSYSTEM),
    ).not.toHaveProperty('last_error');
  });

  test('a withdrawn record listed as modified leaves the corpus', async () => {
    const withdrawnA = record('a', '2026-11-01T13:00:00Z', '1.0.0', { withdrawn: '2026-11-01T13:00:00Z' });
    publishEcosystem(server, ECOSYSTEM, [withdrawnA, changedB, changedC, newD]);
    expect(await run()).toMatchObject({ mode: 'changes', records: 1, withdrawn: 1 });
    expect(await stored('a')).toEqual({ a: undefined });
  });

  test('more changes than the threshold, or a last success older than the horizon, take the whole all.zip', async () => {
    const newF = record('f', '2026-11-01T14:00:00Z');
    const newG = record('g', '2026-11-01T14:00:01Z');
    publishEcosystem(server, ECOSYSTEM, [changedB, changedC, newD, newF, newG]);
    expect(await run({ osvLimits: { ...DEFAULT_OSV_LIMITS, maxChangedRecords: 1 } })).toMatchObject({
      mode: 'full',
      reason: 'too many changes',
      entries: 5,
    });
    expect(requested()).toEqual([`/${ECOSYSTEM}/all.zip`, `/${ECOSYSTEM}/modified_id.csv`]);
    expect(await stored('f', 'g')).toEqual({ f: newF.modified, g: newG.modified });

    const eightDaysOn = new Date(Date.now() + 8 * 24 * 3600_000);
    expect(await run({ now: () => eightDaysOn })).toMatchObject({ mode: 'full', reason: 'last success too old' });
    expect(requested()).toEqual([`/${ECOSYSTEM}/all.zip`, `/${ECOSYSTEM}/modified_id.csv`]);
    expect(await state()).toMatchObject({ lastFullAt: eightDaysOn.toISOString() });
  });
});
