/**
 * The scheduled corpus refresh (functions/corpus-refresh) against a loopback HTTP
 * server serving the feeds in their real wire formats: OSV's modified_id.csv and all.zip,
 * CISA KEV JSON, FIRST EPSS CSV.gz. A failed or partial download of a feed leaves that feed's
 * data as it was and says why; the other feeds are imported. Incremental OSV: corpus-feeds.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runAsFunction } from '../../shared/service/aws-call-log';
import { keys } from '../../shared/service/data/keys';
import { batchGet } from '../../shared/service/data/table-client';
import { corpusStore, packageItemKey } from '../../shared/service/corpus/corpus-store';
import { packageKey } from '../../shared/service/matching/component-identity';
import { refreshCorpus } from '../../shared/service/corpus/refresh';
import { readFeedStates } from '../../shared/service/corpus/feed-state';
import { publishEcosystem, startFeedServer, type Behaviour, type FeedServer } from '../support/feed-server';

const root = resolve(import.meta.dirname, '../..');

// Unique to this run: the corpus is shared with the other integration tests.
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const advisoryId = `GHSA-rfsh-${suffix.slice(0, 4)}-${suffix.slice(4, 8)}`;
const packageName = `refresh-fixture-${suffix}`;
const cveId = `CVE-2098-${randomInt(1_000_000, 9_999_999)}`;

const osvRecord = {
  schema_version: '1.6.0',
  id: advisoryId,
  modified: '2026-11-01T00:00:00Z',
  published: '2026-10-30T00:00:00Z',
  aliases: [cveId],
  summary: 'Refresh fixture advisory',
  details: 'Served by the loopback feed server of corpus-refresh.test.ts.',
  affected: [
    {
      package: { ecosystem: 'npm', name: packageName },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }],
    },
  ],
};

const sampleKev = JSON.parse(
  readFileSync(join(root, 'shared/service/corpus/sample/kev/known_exploited_vulnerabilities.json'), 'utf8'),
) as { vulnerabilities: unknown[] };
const kevJson = Buffer.from(
  JSON.stringify({
    ...sampleKev,
    vulnerabilities: [
      ...sampleKev.vulnerabilities,
      {
        cveID: cveId,
        vendorProject: 'Fixture',
        product: 'refresh-fixture',
        vulnerabilityName: 'Fixture',
        dateAdded: '2026-11-01',
        shortDescription: 'Fixture',
        requiredAction: 'Update',
        dueDate: '2026-11-22',
        knownRansomwareCampaignUse: 'Unknown',
        notes: '',
        cwes: [],
      },
    ],
  }),
);

// FIRST's layout: a `#model_version,score_date` line, the header, one row per CVE.
const epssGz = gzipSync(
  `#model_version:v2025.03.14,score_date:2098-01-0${randomInt(1, 9)}T00:00:00+0000\ncve,epss,percentile\n${cveId},0.91234,0.99876\nCVE-2098-0000001,0.00010,0.01000\n`,
);

let server: FeedServer;
let handler: () => Promise<Record<string, unknown>>;

beforeAll(async () => {
  server = await startFeedServer();
  publishEcosystem(server, 'npm', [osvRecord]);
  server.files.set('/feeds/known_exploited_vulnerabilities.json', { body: kevJson, type: 'application/json' });
  server.files.set('/epss_scores-current.csv.gz', { body: epssGz, type: 'application/gzip' });
  Object.assign(process.env, {
    CORPUS_OSV_BASE_URL: server.base,
    CORPUS_OSV_ECOSYSTEMS: 'npm',
    CORPUS_KEV_URL: `${server.base}/feeds/known_exploited_vulnerabilities.json`,
    CORPUS_EPSS_URL: `${server.base}/epss_scores-current.csv.gz`,
  });
  // The handler reads its feeds at load, as at a Lambda cold start.
  ({ handler } = await import('../../functions/corpus-refresh/handler'));
});

afterAll(async () => {
  await server.close();
});

function behave(how: { osv: Behaviour; kev: Behaviour; epss: Behaviour }): void {
  server.files.get('/npm/all.zip')!.behaviour = how.osv;
  server.files.get('/feeds/known_exploited_vulnerabilities.json')!.behaviour = how.kev;
  server.files.get('/epss_scores-current.csv.gz')!.behaviour = how.epss;
}

/** Every item the fixture feeds would write, as stored now, and the fixture CVE's EPSS score as a scan reads it. */
async function fixtureItems() {
  const wanted = {
    advisory: keys.corpusAdvisory(advisoryId),
    package: packageItemKey(packageKey('npm', packageName)),
    kev: keys.corpusKev(cveId),
  };
  const found = await batchGet(Object.values(wanted));
  const stored = (key: { pk: string; sk: string }) => found.find((item) => item.pk === key.pk && item.sk === key.sk);
  return {
    advisory: stored(wanted.advisory),
    package: stored(wanted.package),
    kev: stored(wanted.kev),
    // Held in a bucket item of many CVEs (epss-buckets.ts).
    epss: (await corpusStore.scores([cveId])).get(cveId)?.epss ?? undefined,
  };
}

const refresh = () => runAsFunction('corpus-refresh', () => handler());

type Source = 'osv' | 'kev' | 'epss';

/** Only one feed configured: the others' data and state stay out of the case. */
function only(source: Source) {
  return {
    osv: { baseUrl: server.base, ecosystems: source === 'osv' ? ['npm'] : [] },
    kev: source === 'kev' ? process.env.CORPUS_KEV_URL : undefined,
    epss: source === 'epss' ? process.env.CORPUS_EPSS_URL : undefined,
  };
}

const stateName: Record<Source, string> = { osv: 'osv/npm', kev: 'kev', epss: 'epss' };

describe('corpus refresh from the feeds', () => {
  test.each([
    ['the EPSS download fails with HTTP 500', 'epss', 'http-500', /epss_scores-current\.csv\.gz: HTTP 500/],
    ['the KEV download fails with HTTP 500', 'kev', 'http-500', /known_exploited_vulnerabilities\.json: HTTP 500/],
    ['the OSV connection is reset mid-body', 'osv', 'reset', /all\.zip: download broken off/],
    ['the OSV zip is truncated', 'osv', 'truncated', /all\.zip: not a complete zip archive/],
    ['the EPSS gzip is truncated', 'epss', 'truncated', /epss_scores-current\.csv\.gz: unreadable epss feed/],
    ['the OSV zip does not match its md5', 'osv', 'bad-md5', /all\.zip: content does not match/],
  ] as const)('%s: that feed fails, keeps its data and says why', async (_name, source, how, message) => {
    behave({ osv: 'ok', kev: 'ok', epss: 'ok', [source]: how });
    const before = await fixtureItems();
    expect(before).toEqual({ advisory: undefined, package: undefined, kev: undefined, epss: undefined });
    await expect(runAsFunction('corpus-refresh', () => refreshCorpus(only(source)))).rejects.toThrow(message);
    expect(await fixtureItems()).toEqual(before);
    const state = (await readFeedStates([{ source, ...(source === 'osv' ? { ecosystem: 'npm' } : {}) }])).get(
      stateName[source],
    );
    expect(state).toMatchObject({ lastAttemptAt: expect.any(String), lastError: expect.stringMatching(message) });
    expect(state?.lastSuccessAt).toBeUndefined();
  });

  test('one failing feed does not hold back the others; the next run takes it in and downloads nothing unchanged', async () => {
    behave({ osv: 'ok', kev: 'ok', epss: 'http-500' });
    await expect(refresh()).rejects.toThrow(/corpus refresh failed for epss: .*epss_scores-current\.csv\.gz: HTTP 500/);
    const first = await fixtureItems();
    expect(first.advisory).toMatchObject({ advisoryId, cveId });
    expect(first.package).toMatchObject({ advisoryCount: 1 });
    expect(first.kev).toMatchObject({ cveId, dueDate: '2026-11-22' });
    expect(first.epss).toBeUndefined();

    behave({ osv: 'ok', kev: 'ok', epss: 'ok' });
    server.requests.length = 0;
    const results = await refresh();
    // OSV's listing and the KEV catalog are unchanged (304 to their ETag): nothing downloaded, nothing imported.
    expect(results['osv/npm']).toEqual({ mode: 'unchanged', records: 0 });
    expect(results.kev).toEqual({ unchanged: true });
    expect(results.epss).toMatchObject({ rows: 2, skipped: false });
    expect(server.requests).toEqual([
      { path: '/npm/modified_id.csv', status: 304 },
      { path: '/feeds/known_exploited_vulnerabilities.json', status: 304 },
      { path: '/epss_scores-current.csv.gz', status: 200 },
    ]);
    expect((await fixtureItems()).epss).toEqual({ score: 0.91234, percentile: 0.99876, date: expect.any(String) });

    const again = await refresh();
    expect(again.epss).toEqual({ skipped: true });
  });

  test('a KEV catalog whose version did not move is not imported again', async () => {
    // Same catalog, new bytes (the server's ETag changes): downloaded, but its catalogVersion says nothing changed.
    const catalog = JSON.parse(kevJson.toString('utf8')) as Record<string, unknown>;
    server.files.set('/feeds/known_exploited_vulnerabilities.json', {
      body: Buffer.from(JSON.stringify(catalog, null, 1)),
      type: 'application/json',
    });
    const results = await runAsFunction('corpus-refresh', () => refreshCorpus(only('kev')));
    expect(results.kev).toMatchObject({ unchanged: true });
  });

  test('a deployment without the feed variables fails at load, not with an empty refresh', async () => {
    const { feedsFromEnvironment } = await import('../../functions/corpus-refresh/handler');
    expect(() => feedsFromEnvironment({})).toThrow(/CORPUS_OSV_BASE_URL: required/);
    expect(() =>
      feedsFromEnvironment({
        CORPUS_OSV_BASE_URL: 'not a url',
        CORPUS_OSV_ECOSYSTEMS: 'npm',
        CORPUS_KEV_URL: '',
        CORPUS_EPSS_URL: '',
      }),
    ).toThrow(/CORPUS_OSV_BASE_URL/);
    expect(() =>
      feedsFromEnvironment({
        CORPUS_OSV_BASE_URL: 'https://a.test',
        CORPUS_OSV_ECOSYSTEMS: 'npm,cargo',
        CORPUS_KEV_URL: '',
        CORPUS_EPSS_URL: '',
      }),
    ).toThrow(/"cargo" is not an ecosystem the matcher supports/);
    expect(
      feedsFromEnvironment({
        CORPUS_OSV_BASE_URL: 'https://a.test/osv',
        CORPUS_OSV_ECOSYSTEMS: 'npm, PyPI',
        CORPUS_KEV_URL: '',
        CORPUS_EPSS_URL: 'https://e.test/x.csv.gz',
      }),
    ).toEqual({
      osv: { baseUrl: 'https://a.test/osv', ecosystems: ['npm', 'PyPI'] },
      kev: undefined,
      epss: 'https://e.test/x.csv.gz',
    });
    expect(
      feedsFromEnvironment({
        CORPUS_OSV_BASE_URL: 'https://a.test',
        CORPUS_OSV_ECOSYSTEMS: '',
        CORPUS_KEV_URL: '',
        CORPUS_EPSS_URL: '',
      }).osv.ecosystems,
    ).toEqual([]);
  });
});
