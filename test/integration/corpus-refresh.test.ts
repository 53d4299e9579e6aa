/**
 * The scheduled corpus refresh (functions/corpus-refresh) against a loopback HTTP
 * server serving the feeds in their real wire formats: OSV all.zip, CISA KEV JSON,
 * FIRST EPSS CSV.gz. A failed or partial download of any feed leaves the corpus as it
 * was; a whole set of feeds is imported (issue 9 item 11).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync, strToU8 } from 'fflate';
import { runAsFunction } from '../../shared/service/aws-call-log';
import { keys } from '../../shared/service/data/keys';
import { batchGet } from '../../shared/service/data/table-client';
import { packageItemKey } from '../../shared/service/corpus/corpus-store';
import { packageKey } from '../../shared/service/matching/component-identity';

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
// all.zip holds one `<ID>.json` per record.
const osvZip = Buffer.from(zipSync({ [`${advisoryId}.json`]: strToU8(JSON.stringify(osvRecord)) }));

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

type Behaviour = 'ok' | 'http-500' | 'truncated' | 'reset' | 'bad-md5';
const behaviour: Record<'osv' | 'kev' | 'epss', Behaviour> = { osv: 'ok', kev: 'ok', epss: 'ok' };

function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

function serve(response: ServerResponse, body: Buffer, how: Behaviour, type: string): void {
  switch (how) {
    case 'ok':
    case 'bad-md5': {
      // As GCS sends it for OSV: crc32c and md5 of the object.
      const hash = how === 'ok' ? md5(body) : md5(Buffer.from('something else'));
      response.writeHead(200, {
        'Content-Type': type,
        'Content-Length': body.length,
        'x-goog-hash': `crc32c=AAAAAA==,md5=${hash}`,
      });
      response.end(body);
      return;
    }
    case 'http-500':
      response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end('backend error');
      return;
    case 'truncated': {
      // The file itself is cut short (an interrupted mirror): a consistent response of fewer bytes.
      const part = body.subarray(0, Math.floor(body.length * 0.6));
      response.writeHead(200, { 'Content-Type': type, 'Content-Length': part.length });
      response.end(part);
      return;
    }
    case 'reset':
      // Announces the whole body, sends part of it, then resets the connection.
      response.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
      response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.resetAndDestroy());
      return;
  }
}

let server: Server;
let handler: () => Promise<Record<string, unknown>>;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/npm/all.zip') serve(response, osvZip, behaviour.osv, 'application/zip');
    else if (request.url === '/feeds/known_exploited_vulnerabilities.json')
      serve(response, kevJson, behaviour.kev, 'application/json');
    else if (request.url === '/epss_scores-current.csv.gz') serve(response, epssGz, behaviour.epss, 'application/gzip');
    else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    CORPUS_OSV_URLS: `${base}/npm/all.zip`,
    CORPUS_KEV_URL: `${base}/feeds/known_exploited_vulnerabilities.json`,
    CORPUS_EPSS_URL: `${base}/epss_scores-current.csv.gz`,
  });
  // The handler reads its feeds at load, as at a Lambda cold start.
  ({ handler } = await import('../../functions/corpus-refresh/handler'));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

/** Every item the fixture feeds would write, as stored now. */
async function fixtureItems() {
  const wanted = {
    advisory: keys.corpusAdvisory(advisoryId),
    package: packageItemKey(packageKey('npm', packageName)),
    kev: keys.corpusKev(cveId),
    epss: keys.corpusEpss(cveId),
  };
  const found = await batchGet(Object.values(wanted));
  return Object.fromEntries(
    Object.entries(wanted).map(([name, key]) => [name, found.find((item) => item.pk === key.pk && item.sk === key.sk)]),
  );
}

const refresh = () => runAsFunction('corpus-refresh', () => handler());

describe('corpus refresh from the feeds', () => {
  test.each([
    [
      'the EPSS download fails with HTTP 500',
      { osv: 'ok', kev: 'ok', epss: 'http-500' },
      /epss_scores-current\.csv\.gz: HTTP 500/,
    ],
    [
      'the KEV download fails with HTTP 500',
      { osv: 'ok', kev: 'http-500', epss: 'ok' },
      /known_exploited_vulnerabilities\.json: HTTP 500/,
    ],
    ['the OSV connection is reset mid-body', { osv: 'reset', kev: 'ok', epss: 'ok' }, /all\.zip: download broken off/],
    ['the OSV zip is truncated', { osv: 'truncated', kev: 'ok', epss: 'ok' }, /all\.zip: not a complete zip archive/],
    [
      'the EPSS gzip is truncated',
      { osv: 'ok', kev: 'ok', epss: 'truncated' },
      /epss_scores-current\.csv\.gz: unreadable epss feed/,
    ],
    [
      'the OSV zip does not match its md5',
      { osv: 'bad-md5', kev: 'ok', epss: 'ok' },
      /all\.zip: content does not match/,
    ],
  ] as const)('%s: the refresh fails and the corpus stays as it was', async (_name, how, message) => {
    Object.assign(behaviour, how);
    const before = await fixtureItems();
    expect(before).toEqual({ advisory: undefined, package: undefined, kev: undefined, epss: undefined });
    await expect(refresh()).rejects.toThrow(message);
    expect(await fixtureItems()).toEqual(before);
  });

  test('whole feeds are imported, and a second run writes nothing new', async () => {
    Object.assign(behaviour, { osv: 'ok', kev: 'ok', epss: 'ok' });
    const results = await refresh();
    expect(results[process.env.CORPUS_OSV_URLS!]).toMatchObject({ entries: 1, read: 1, written: 1, errors: 0 });
    expect(results.kev).toMatchObject({ written: 1 });
    expect(results.epss).toMatchObject({ rows: 2, skipped: false });

    const after = await fixtureItems();
    expect(after.advisory).toMatchObject({ advisoryId, cveId });
    expect(after.package).toMatchObject({ advisoryCount: 1 });
    expect(after.kev).toMatchObject({ cveId, dueDate: '2026-11-22' });
    expect(after.epss).toMatchObject({ cveId, epss: 0.91234, percentile: 0.99876 });

    const again = await refresh();
    expect(again[process.env.CORPUS_OSV_URLS!]).toMatchObject({ read: 1, written: 0, unchanged: 1 });
    expect(again.kev).toMatchObject({ written: 0 });
    expect(again.epss).toMatchObject({ skipped: true });
  });

  test('a deployment without the feed variables fails at load, not with an empty refresh', async () => {
    const { feedsFromEnvironment } = await import('../../functions/corpus-refresh/handler');
    expect(() => feedsFromEnvironment({})).toThrow(/CORPUS_OSV_URLS: required/);
    expect(() =>
      feedsFromEnvironment({ CORPUS_OSV_URLS: 'not a url', CORPUS_KEV_URL: '', CORPUS_EPSS_URL: '' }),
    ).toThrow(/CORPUS_OSV_URLS/);
    expect(
      feedsFromEnvironment({
        CORPUS_OSV_URLS: 'https://a.test/npm/all.zip, https://a.test/PyPI/all.zip',
        CORPUS_KEV_URL: '',
        CORPUS_EPSS_URL: 'https://e.test/x.csv.gz',
      }),
    ).toEqual({
      osv: ['https://a.test/npm/all.zip', 'https://a.test/PyPI/all.zip'],
      kev: undefined,
      epss: 'https://e.test/x.csv.gz',
    });
  });
});
