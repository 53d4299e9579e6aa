/**
 * A team's CSAF trusted provider, walked the way gocsaf's csaf_downloader and csaf_checker
 * walk one (cmd/csaf_downloader/downloader.go, csaf/advisories.go, cmd/csaf_checker/
 * processor.go and roliecheck.go): provider-metadata.json (well-known URL, then its
 * canonical URL) → ROLIE feed → each entry's document → its hash files; plus the
 * directory distribution (index.txt, changes.csv, listings) and the ROLIE service and
 * category documents. Each check names the CSAF 2.0 section 7.1 requirement it covers.
 *
 * The server runs with an https PUBLIC_BASE_URL: the test plays the TLS-terminating
 * front (requirement 3 is the deployment's) and refuses any URL outside that origin.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { cycloneDxSbom } from '../support/seed';
import {
  DIRECTORY,
  ORIGIN,
  PUBLISHER,
  expectedFileName,
  hashOfHashFile,
  providerSchemas,
  type Fetched,
} from '../support/csaf-provider';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

/* eslint-disable @typescript-eslint/no-explicit-any -- the walk reads arbitrary JSON documents */

describe('CSAF trusted provider of a team', () => {
  let server: ServerProcess;
  let apiKey: string;
  const schemas = providerSchemas();
  const seenUrls: string[] = [];

  /** Public GET through the stand-in TLS front: https only, no credentials, no redirects followed. */
  async function get(url: string): Promise<Fetched> {
    expect(url.startsWith(`${ORIGIN}/`)).toBe(true); // requirement 3: every advertised URL is https on the public origin
    seenUrls.push(url);
    const response = await fetch(`${server.baseUrl}${url.slice(ORIGIN.length)}`, { redirect: 'manual' });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      bytes,
      text,
      json: (): any => JSON.parse(text),
    };
  }

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async function publishCsaf(releaseId: string): Promise<{ slug: string; raw: Buffer }> {
    const created = await api('POST', `/api/releases/${releaseId}/vex`, { format: 'csaf', author: 'PSIRT' });
    expect(created.status).toBe(201);
    for (const step of ['submit', 'approve'])
      expect((await api('POST', `/api/vex/${created.body.data.id}/${step}`, {})).status).toBe(200);
    const published = await api('POST', `/api/vex/${created.body.data.id}/publish`, {});
    expect(published.status).toBe(200);
    const slug = String(published.body.disclosure.public_slug);
    return { slug, raw: (await get(`${ORIGIN}/api/disclosures/${slug}?format=raw`)).bytes };
  }

  let first: { slug: string; raw: Buffer };
  let second: { slug: string; raw: Buffer };

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-csaf-provider-'));
    server = await startServerProcess(dataDir, {
      PUBLIC_BASE_URL: ORIGIN,
      CSAF_DEFAULT_PROVIDER: DIRECTORY,
      DISCLOSURE_SIGNING_KEY: 'csaf-provider-test',
      TEAM_RATE_LIMIT: '1000',
      TEAM_BURST_LIMIT: '1000',
    });
    apiKey = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string }).apiKey;

    const settings = await api('PUT', '/api/settings', {
      csafProvider: { directory: DIRECTORY, publisher: PUBLISHER },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.data.csafProvider).toEqual({
      directory: DIRECTORY,
      publisher: PUBLISHER,
      providerMetadataUrl: `${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/provider-metadata.json`,
      wellKnown: true,
    });
    const product = (await api('POST', '/api/products', { name: 'Edge Gateway', slug: 'edge-gateway', vendor: 'ACME' }))
      .body.data;
    const release = (await api('POST', `/api/products/${product.id}/releases`, { version: '2.4.1' })).body.data;
    // Django 1.0.1 has advisories in the bundled sample corpus the server loads on first start.
    const upload = await api('POST', '/api/sboms/upload', {
      releaseId: release.id,
      fileName: 'bom.json',
      content: cycloneDxSbom([{ name: 'django', version: '1.0.1', purl: 'pkg:pypi/django@1.0.1' }]),
    });
    expect(upload.status).toBe(201);
    const scan = await api('POST', '/api/cve-scan', { sbomId: upload.body.data.id });
    expect(scan.status).toBe(202);
    expect(scan.body.data.findingCount).toBeGreaterThan(0);

    first = await publishCsaf(release.id);
    expect(
      (await api('POST', `/api/releases/${release.id}/unlock`, { comment: 'prepare the next revision' })).status,
    ).toBe(200);
    second = await publishCsaf(release.id);
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('serves provider-metadata.json at the well-known URL and at its canonical URL, valid against the official schema (requirements 7, 9)', async () => {
    const wellKnown = await get(`${ORIGIN}/.well-known/csaf/provider-metadata.json`);
    expect(wellKnown.status).toBe(200); // requirement 6: served directly, no redirect
    expect(wellKnown.contentType).toBe('application/json');
    const pmd = wellKnown.json();
    expect(schemas.provider(pmd)).toEqual([]);
    expect(pmd).toMatchObject({
      canonical_url: `${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/provider-metadata.json`,
      metadata_version: '2.0',
      role: 'csaf_trusted_provider',
      list_on_CSAF_aggregators: true,
      mirror_on_CSAF_aggregators: true,
      publisher: PUBLISHER,
    });
    expect(Number.isNaN(Date.parse(pmd.last_updated))).toBe(false);
    // Requirement 8 (security.txt names the canonical URL) and csaf_downloader's check that it matches the well-known file byte for byte.
    const canonical = await get(pmd.canonical_url);
    expect(canonical.status).toBe(200);
    expect(canonical.bytes.equals(wellKnown.bytes)).toBe(true);
    // Requirement 20: the team's OpenPGP keys are listed with fingerprints and served beside provider-metadata.json.
    expect(pmd.public_openpgp_keys).toEqual([
      {
        fingerprint: expect.stringMatching(/^[0-9A-F]{40}$/),
        url: `${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/openpgp/${pmd.public_openpgp_keys[0]?.fingerprint}.asc`,
      },
    ]);
    const key = await get(pmd.public_openpgp_keys[0].url);
    expect(key.status).toBe(200);
    expect(key.text).toContain('-----BEGIN PGP PUBLIC KEY BLOCK-----');
  });

  it('lists every CSAF document once in a schema-valid ROLIE feed, with service and category documents (requirements 15, 16, 17)', async () => {
    const pmd = (await get(`${ORIGIN}/.well-known/csaf/provider-metadata.json`)).json();
    const feeds = (pmd.distributions as { rolie?: { feeds: { url: string; tlp_label: string }[] } }[]).flatMap(
      (distribution) => distribution.rolie?.feeds ?? [],
    );
    expect(feeds).toEqual([
      expect.objectContaining({
        tlp_label: 'WHITE',
        url: `${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/white/feed-tlp-white.json`,
      }),
    ]);
    const feedResponse = await get(feeds[0]!.url);
    expect(feedResponse.status).toBe(200);
    expect(feedResponse.contentType).toBe('application/json');
    const feed = feedResponse.json();
    expect(schemas.rolieFeed(feed)).toEqual([]);
    expect(feed.feed.link).toContainEqual({ rel: 'self', href: feeds[0]!.url });
    const trackingId = JSON.parse(second.raw.toString('utf8')).document.tracking.id;
    expect(feed.feed.entry).toHaveLength(1); // one entry per tracking id: the release's two publications are two revisions of one document
    expect(feed.feed.entry[0]).toMatchObject({
      id: trackingId,
      content: { type: 'application/json' },
      format: { version: '2.0' },
    });

    // csaf_checker serviceCheck: service.json beside provider-metadata.json lists exactly the feeds.
    const service = await get(`${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/service.json`);
    expect(service.status).toBe(200);
    const collections = (service.json().service.workspace as any[]).flatMap((workspace): string[] =>
      (workspace.collection as any[]).map((collection): string => String(collection.href)),
    );
    expect(collections).toEqual(feeds.map((f) => f.url));
    expect(pmd.distributions[0].rolie.services).toEqual([`${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/service.json`]);
    // csaf_checker categoryCheck: category-<tlp>.json beside the feed, with distinguishing categories.
    const category = await get(`${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/white/category-white.json`);
    expect(category.status).toBe(200);
    expect(category.json().categories.category).toEqual(
      expect.arrayContaining([{ term: 'csaf_vex' }, { term: 'Edge Gateway' }]),
    );
  });

  it("serves each feed entry's current revision under its year folder and tracking-id file name, with matching hash files (requirements 1, 2, 4, 11, 18)", async () => {
    const pmd = (await get(`${ORIGIN}/.well-known/csaf/provider-metadata.json`)).json();
    const feed = (await get(pmd.distributions[0].rolie.feeds[0].url)).json();
    const scratch = mkdtempSync(join(tmpdir(), 'vexdesk-csaf-walk-'));
    // Requirement 19 as csaf_downloader checks it: the keys from provider-metadata.json in a keyring of the walk's own.
    const gnupgHome = mkdtempSync(join(tmpdir(), 'vexdesk-csaf-gnupg-'));
    const gpgEnv = { ...process.env, GNUPGHOME: gnupgHome };
    const fingerprints = (pmd.public_openpgp_keys as { fingerprint: string; url: string }[]).map(
      (key) => key.fingerprint,
    );
    for (const [index, listed] of (pmd.public_openpgp_keys as { url: string }[]).entries()) {
      writeFileSync(join(scratch, `key-${index}.asc`), (await get(listed.url)).bytes);
      execFileSync('gpg', ['--batch', '--import', `key-${index}.asc`], { cwd: scratch, env: gpgEnv, stdio: 'pipe' });
    }
    for (const entry of feed.feed.entry) {
      // csaf/advisories.go processROLIE: self, hash (.sha256/.sha512) and signature links.
      const self = entry.link.find((link: any) => link.rel === 'self').href as string;
      const hashes = entry.link.filter((link: any) => link.rel === 'hash').map((link: any) => link.href as string);
      expect(hashes.sort()).toEqual([`${self}.sha256`, `${self}.sha512`]);
      expect(entry.content.src).toBe(self);
      const fileName = self.slice(self.lastIndexOf('/') + 1);

      const documentResponse = await get(self);
      expect(documentResponse.status).toBe(200); // requirement 4: TLP:WHITE, freely accessible
      expect(documentResponse.contentType).toBe('application/json');
      const document = documentResponse.json();
      expect(documentResponse.bytes.equals(second.raw)).toBe(true); // the directory serves the current revision's published bytes
      // Requirement 1: valid CSAF (schema and mandatory tests).
      expect(vexSchemaValidator().csaf(document).errors).toEqual([]);
      expect((await runCsafMandatoryTests(document)).failures).toEqual([]);
      expect(document.document.distribution.tlp.label).toBe('WHITE');
      expect(document.document.publisher).toEqual(PUBLISHER); // requirement 7: the publisher object matches the documents'
      // Requirement 2 (5.1) and csaf_downloader's IDMatchesFilename.
      expect(fileName).toBe(expectedFileName(document.document.tracking.id));
      expect(entry.id).toBe(document.document.tracking.id);
      // Requirement 11: the folder is the year of initial_release_date.
      expect(self).toBe(
        `${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/white/${new Date(document.document.tracking.initial_release_date).getUTCFullYear()}/${fileName}`,
      );

      // Requirement 18: hash files start with the hex digest; sha256sum -c / sha512sum -c accept them beside the document.
      writeFileSync(join(scratch, fileName), documentResponse.bytes);
      for (const algorithm of ['sha256', 'sha512'] as const) {
        const hashFile = await get(`${self}.${algorithm}`);
        expect(hashFile.status).toBe(200);
        expect(hashOfHashFile(hashFile.text)).toBe(createHash(algorithm).update(documentResponse.bytes).digest('hex'));
        writeFileSync(join(scratch, `${fileName}.${algorithm}`), hashFile.bytes);
        expect(
          execFileSync(`${algorithm}sum`, ['-c', `${fileName}.${algorithm}`], { cwd: scratch, encoding: 'utf8' }),
        ).toBe(`${fileName}: OK\n`);
      }
      // Requirement 19: the feed links the `.asc`, and gpg verifies it with a key provider-metadata.json lists.
      expect(entry.link).toContainEqual({ rel: 'signature', href: `${self}.asc` });
      const signature = await get(`${self}.asc`);
      expect(signature.status).toBe(200);
      writeFileSync(join(scratch, `${fileName}.asc`), signature.bytes);
      const verified = execFileSync('gpg', ['--batch', '--status-fd', '1', '--verify', `${fileName}.asc`, fileName], {
        cwd: scratch,
        env: gpgEnv,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(fingerprints).toContain(/^\[GNUPG:\] VALIDSIG ([0-9A-F]{40}) /m.exec(verified)?.[1]);
      // Optional test 6.2.11: the document names this URL as its canonical one.
      expect(document.document.references).toContainEqual(expect.objectContaining({ category: 'self', url: self }));
    }
  }, 300_000); // the CSAF mandatory tests over a document with Django's many advisories take tens of seconds on a loaded machine

  it("keeps one tracking id across the release's publications; version and revision history grow, and each revision stays at its own disclosure", async () => {
    const one = JSON.parse(first.raw.toString('utf8')).document.tracking;
    const two = JSON.parse(second.raw.toString('utf8')).document.tracking;
    expect(two.id).toBe(one.id);
    expect(one.id).toMatch(/^edge-gateway-2\.4\.1-[0-9a-f]{8}$/);
    expect([one.version, two.version]).toEqual(['1', '2']);
    expect((two.revision_history as any[]).map((revision): string => String(revision.number))).toEqual(['1', '2']);
    expect(two.revision_history[0]).toEqual(one.revision_history[0]);
    expect(two.initial_release_date).toBe(one.initial_release_date);
    expect(two.current_release_date).toBe(two.revision_history[1].date);
    // The first revision is still served, unchanged, at its own immutable URL.
    expect((await get(`${ORIGIN}/api/disclosures/${first.slug}?format=raw`)).bytes.equals(first.raw)).toBe(true);
    // A CSAF disclosure links its provider's metadata, so a client discovers the directory from the disclosure.
    expect((await get(`${ORIGIN}/api/disclosures/${first.slug}`)).json().data.links.provider_metadata).toBe(
      `/api/disclosures/csaf/${DIRECTORY}/provider-metadata.json`,
    );
    expect(first.slug).not.toBe(second.slug);
  });

  it('serves the directory distribution: index.txt, changes.csv and listings (requirements 12, 13, 14)', async () => {
    const pmd = (await get(`${ORIGIN}/.well-known/csaf/provider-metadata.json`)).json();
    const directoryUrl = pmd.distributions[0].directory_url as string;
    expect(directoryUrl).toBe(`${ORIGIN}/api/disclosures/csaf/${DIRECTORY}/white/`);
    const tracking = JSON.parse(second.raw.toString('utf8')).document.tracking;
    const path = `${new Date(tracking.initial_release_date).getUTCFullYear()}/${expectedFileName(tracking.id)}`;

    const index = await get(`${directoryUrl}index.txt`);
    expect(index.status).toBe(200);
    expect(index.text).toBe(`${path}\n`);
    // CSAF 2.0's changes.csv: quoted path and current_release_date, no heading, latest first.
    const changes = await get(`${directoryUrl}changes.csv`);
    expect(changes.status).toBe(200);
    expect(changes.text).toBe(`"${path}","${tracking.current_release_date}"\n`);

    // csaf_checker checkListing: the parent folder of each document (with its trailing slash) links it.
    const documentUrl = `${directoryUrl}${path}`;
    const yearFolder = await get(documentUrl.slice(0, documentUrl.lastIndexOf('/') + 1));
    expect(yearFolder.status).toBe(200);
    expect(yearFolder.text).toContain(`href="${documentUrl}"`);
    expect(yearFolder.text).toContain(`href="${documentUrl}.sha512"`);
    const top = await get(directoryUrl);
    expect(top.status).toBe(200);
    for (const name of [`${path.slice(0, 4)}/`, 'index.txt', 'changes.csv', 'feed-tlp-white.json'])
      expect(top.text).toContain(`href="${directoryUrl}${name}"`);
  });

  it('never redirected, and never needed a credential, on the whole walk (requirements 4, 6)', () => {
    expect(seenUrls.length).toBeGreaterThan(10);
  });

  it('answers 404 with the error body for an unknown directory, year, document, key or a file name outside CSAF 5.1, never 500', async () => {
    for (const path of [
      '/api/disclosures/csaf/no-such-provider/provider-metadata.json',
      `/api/disclosures/csaf/${DIRECTORY}/white/1999/`,
      `/api/disclosures/csaf/${DIRECTORY}/white/2026/nothing-here.json`,
      `/api/disclosures/csaf/${DIRECTORY}/white/2026/Upper.JSON`,
      `/api/disclosures/csaf/${DIRECTORY}/white/2026/..%2F..%2Fprovider-metadata.json`,
      `/api/disclosures/csaf/${DIRECTORY}/openpgp/${'A'.repeat(40)}.asc`,
    ]) {
      const response = await get(`${ORIGIN}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.json().error.code).toEqual(expect.any(String));
    }
  });
});
