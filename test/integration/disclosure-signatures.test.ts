/**
 * Public-key signatures of disclosures (issue 11 item 1), checked with the
 * tools a customer uses offline: `gpg --verify` on every `.asc`, `sha256sum -c`
 * / `sha512sum -c` on the checksum files, `openssl pkeyutl -verify -rawin` on
 * the DSSE envelope's Ed25519 signature over the PAE.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { keys } from '../../shared/service/data/keys';
import { getItem, queryAll } from '../../shared/service/data/table-client';
import { dssePae } from '../../shared/service/disclosures/publisher-keys';
import { adminBundle } from '../support/server-bundle';
import { addKey, createTeamWithKey } from '../support/factories';
import { baseUrl, request } from '../support/http-client';
import { seedReleaseWithFindings } from '../support/seed';

type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];

const OCI_DIGEST = 'a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4';

/** Seeds a release, decides its findings, and publishes a document of `format`: the disclosure view. */
async function publish(api: Api, teamId: string, format: 'openvex' | 'csaf' | 'cyclonedx_vex', purl?: string) {
  const { release, findings } = await seedReleaseWithFindings(api, teamId, 2);
  if (purl) expect((await api.put(`/api/releases/${release.id}`, { purl })).status).toBe(200);
  for (const finding of findings) {
    expect(
      (
        await api.post('/api/dispositions', {
          vulnerabilityId: finding.id,
          status: 'not_affected',
          justification: 'component_not_present',
        })
      ).status,
    ).toBeLessThan(300);
  }
  const document = (await api.post(`/api/releases/${release.id}/vex`, { format, author: 'PSIRT' })).body.data;
  expect((await api.post(`/api/vex/${document.id}/submit`, { comment: 'ready' })).status).toBe(200);
  expect((await api.post(`/api/vex/${document.id}/approve`, {})).status).toBe(200);
  const published = await api.post(`/api/vex/${document.id}/publish`, {});
  expect(published.status).toBe(200);
  const slug = published.body.disclosure.public_slug as string;
  return (await request('GET', `/api/disclosures/${slug}`)).body.data as {
    public_slug: string;
    public_key_fingerprint: string;
    links: Record<string, string>;
  };
}

/** The file name a download is served as (Content-Disposition), which the checksum files and the docs name. */
function servedName(headers: Headers): string {
  const match = /filename="([^"]+)"/.exec(headers.get('content-disposition') ?? '');
  if (!match?.[1]) throw new Error('no Content-Disposition file name');
  return match[1];
}

/** Downloads every file of a disclosure into `dir` under its served name, as `curl -OJ` would. */
async function download(dir: string, links: Record<string, string>, kinds: string[]): Promise<Record<string, string>> {
  const names: Record<string, string> = {};
  for (const kind of kinds) {
    const path = links[kind];
    if (!path) throw new Error(`no ${kind} link`);
    const response = await fetch(`${baseUrl()}${path}`);
    expect(response.status).toBe(200);
    names[kind] = servedName(response.headers);
    writeFileSync(join(dir, names[kind]), Buffer.from(await response.arrayBuffer()));
  }
  return names;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

/** A keyring of its own per test: nothing from the machine's ~/.gnupg. */
function gpgHome(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'vexdesk-gnupg-'));
  return { ...process.env, GNUPGHOME: home };
}

function gpgVerify(env: NodeJS.ProcessEnv, dir: string, signature: string, file: string) {
  const result = run('gpg', ['--batch', '--status-fd', '1', '--verify', signature, file], { cwd: dir, env });
  const valid = /^\[GNUPG:\] VALIDSIG ([0-9A-F]{40}) /m.exec(result.out);
  return {
    status: result.status,
    goodsig: /^\[GNUPG:\] GOODSIG /m.test(result.out),
    fingerprint: valid?.[1] ?? null,
    out: result.out,
  };
}

describe('disclosure signatures', () => {
  it('signs every disclosure with the team key: gpg --verify, sha256sum -c and sha512sum -c pass on the downloaded files', async () => {
    const { api, teamId } = await createTeamWithKey();
    const disclosure = await publish(api, teamId, 'csaf');
    const slug = disclosure.public_slug;
    expect(disclosure.links).toMatchObject({
      self: `/api/disclosures/${slug}`,
      raw: `/api/disclosures/${slug}?format=raw`,
      signature: `/api/disclosures/${slug}/signature`,
      sha256: `/api/disclosures/${slug}/sha256`,
      sha512: `/api/disclosures/${slug}/sha512`,
      public_keys: `/api/disclosures/publishers/${teamId}/keys?format=asc`,
    });
    expect(disclosure.links.attestation).toBeUndefined();

    const dir = mkdtempSync(join(tmpdir(), 'vexdesk-disclosure-'));
    const names = await download(dir, disclosure.links, ['raw', 'signature', 'sha256', 'sha512', 'public_keys']);
    expect(names).toMatchObject({
      raw: `${slug}.json`,
      signature: `${slug}.json.asc`,
      sha256: `${slug}.json.sha256`,
      sha512: `${slug}.json.sha512`,
    });

    expect(run('sha256sum', ['-c', names.sha256!], { cwd: dir })).toEqual({ status: 0, out: `${slug}.json: OK\n` });
    expect(run('sha512sum', ['-c', names.sha512!], { cwd: dir })).toEqual({ status: 0, out: `${slug}.json: OK\n` });
    const env = gpgHome();
    expect(run('gpg', ['--batch', '--import', names.public_keys!], { cwd: dir, env })).toMatchObject({ status: 0 }); // on failure, gpg's output is in the message
    const verified = gpgVerify(env, dir, names.signature!, names.raw!);
    expect(verified).toMatchObject({ status: 0, goodsig: true, fingerprint: disclosure.public_key_fingerprint });

    // The same tools refuse a changed byte.
    writeFileSync(join(dir, names.raw!), Buffer.concat([Buffer.from(' '), readFileSync(join(dir, names.raw!))]));
    expect(gpgVerify(env, dir, names.signature!, names.raw!)).toMatchObject({ goodsig: false, fingerprint: null });
    expect(run('sha256sum', ['-c', names.sha256!], { cwd: dir }).status).not.toBe(0);
  });

  it('reports the public-key result in /verify beside the unchanged HMAC fields', async () => {
    const { api, teamId } = await createTeamWithKey();
    const disclosure = await publish(api, teamId, 'cyclonedx_vex');
    const verify = await request('GET', `/api/disclosures/${disclosure.public_slug}/verify`);
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({
      public_slug: disclosure.public_slug,
      content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      signed: true,
      signature_valid: true,
      public_key_signature: {
        signed: true,
        signature_valid: true,
        key_fingerprint: disclosure.public_key_fingerprint,
        key_status: 'listed',
        algorithm: expect.stringContaining('Ed25519'),
      },
    });
  });

  it('offers an OpenVEX disclosure as an in-toto DSSE attestation that openssl verifies with the published JWK', async () => {
    const { api, teamId } = await createTeamWithKey();
    const purl = `pkg:oci/seeded-app@sha256%3A${OCI_DIGEST}?repository_url=ghcr.io/acme/seeded-app`;
    const disclosure = await publish(api, teamId, 'openvex', purl);
    expect(disclosure.links.attestation).toBe(`/api/disclosures/${disclosure.public_slug}/attestation`);
    const envelopeResponse = await request('GET', disclosure.links.attestation!);
    expect(envelopeResponse.headers.get('content-type')).toBe('application/vnd.dsse.envelope.v1+json');
    const envelope = envelopeResponse.body as {
      payloadType: string;
      payload: string;
      signatures: { keyid: string; sig: string }[];
    };
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    const payload = Buffer.from(envelope.payload, 'base64');
    const statement = JSON.parse(payload.toString('utf8'));
    const raw = await request('GET', disclosure.links.raw!);
    expect(statement).toEqual({
      _type: 'https://in-toto.io/Statement/v1',
      predicateType: 'https://openvex.dev/ns/v0.2.0',
      subject: [{ name: purl, digest: { sha256: OCI_DIGEST } }],
      predicate: JSON.parse(raw.text),
    });

    const jwks = await request('GET', `/api/disclosures/publishers/${teamId}/keys?format=jwks`);
    expect(jwks.headers.get('content-type')).toBe('application/jwk-set+json');
    const jwk = (jwks.body as { keys: { kid: string }[] }).keys.find(
      (key) => key.kid === envelope.signatures[0]!.keyid,
    );
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', kid: disclosure.public_key_fingerprint });
    const dir = mkdtempSync(join(tmpdir(), 'vexdesk-dsse-'));
    writeFileSync(
      join(dir, 'key.pem'),
      createPublicKey({ key: jwk as unknown as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }),
    );
    writeFileSync(join(dir, 'pae.bin'), dssePae(envelope.payloadType, payload));
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(envelope.signatures[0]!.sig, 'base64'));
    const verify = [
      'pkeyutl',
      '-verify',
      '-pubin',
      '-inkey',
      'key.pem',
      '-rawin',
      '-in',
      'pae.bin',
      '-sigfile',
      'sig.bin',
    ];
    expect(run('openssl', verify, { cwd: dir })).toMatchObject({
      status: 0,
      out: expect.stringContaining('Signature Verified Successfully'),
    });
    // A changed payload type is a different PAE: refused.
    writeFileSync(join(dir, 'pae.bin'), dssePae('application/json', payload));
    expect(run('openssl', verify, { cwd: dir }).status).not.toBe(0);
  });

  it('keeps old keys after a rotation: disclosures signed before and after both verify with gpg and /verify', async () => {
    const { api, teamId } = await createTeamWithKey();
    const before = await publish(api, teamId, 'csaf');
    const rotated = await api.post('/api/settings/publisher-keys/rotate');
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.fingerprint).not.toBe(before.public_key_fingerprint);
    const after = await publish(api, teamId, 'csaf');
    expect(after.public_key_fingerprint).toBe(rotated.body.data.fingerprint);

    const listed = await request('GET', `/api/disclosures/publishers/${teamId}/keys`);
    expect(listed.body.data.map((key: { fingerprint: string }) => key.fingerprint)).toEqual([
      before.public_key_fingerprint,
      after.public_key_fingerprint,
    ]);
    for (const key of listed.body.data)
      expect(key).toMatchObject({
        created_at: expect.any(String),
        expires_at: null,
        revoked_at: null,
        armored: expect.stringContaining('PUBLIC KEY'),
      });
    // Listed in the order they were made, even within one second (OpenPGP creation times are whole seconds).
    const third = (await api.post('/api/settings/publisher-keys/rotate')).body.data.fingerprint as string;
    const fourth = (await api.post('/api/settings/publisher-keys/rotate')).body.data.fingerprint as string;
    expect(
      (await api.get('/api/settings/publisher-keys')).body.data.map((key: { fingerprint: string }) => key.fingerprint),
    ).toEqual([before.public_key_fingerprint, after.public_key_fingerprint, third, fourth]);

    const env = gpgHome();
    const dir = mkdtempSync(join(tmpdir(), 'vexdesk-rotation-'));
    const keyFile = await download(dir, after.links, ['public_keys']);
    expect(run('gpg', ['--batch', '--import', keyFile.public_keys!], { cwd: dir, env }).out).toContain('imported: 4');
    for (const disclosure of [before, after]) {
      const names = await download(dir, disclosure.links, ['raw', 'signature']);
      expect(gpgVerify(env, dir, names.signature!, names.raw!)).toMatchObject({
        status: 0,
        goodsig: true,
        fingerprint: disclosure.public_key_fingerprint,
      });
      const verify = await request('GET', `/api/disclosures/${disclosure.public_slug}/verify`);
      expect(verify.body.public_key_signature).toMatchObject({
        signature_valid: true,
        key_fingerprint: disclosure.public_key_fingerprint,
        key_status: 'listed',
      });
    }
  });

  it('never shows or stores a private key in clear; rotation needs settings:write', async () => {
    const { api, teamId, memberId } = await createTeamWithKey();
    const disclosure = await publish(api, teamId, 'cyclonedx_vex');
    const reader = await addKey(teamId, memberId, ['settings:read']);
    expect((await reader.api.post('/api/settings/publisher-keys/rotate')).status).toBe(403);

    const responses = [
      await request('GET', `/api/disclosures/publishers/${teamId}/keys`),
      await request('GET', `/api/disclosures/publishers/${teamId}/keys?format=asc`),
      await request('GET', `/api/disclosures/publishers/${teamId}/keys?format=jwks`),
      await api.get('/api/settings/publisher-keys'),
      await request('GET', `/api/disclosures/${disclosure.public_slug}`),
    ];
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.text).not.toMatch(/PRIVATE KEY|"d":/);
    }
    const [publicKey] = await queryAll(keys.publisherKeyPrefix(teamId));
    const sealed = await getItem(keys.publisherPrivateKey(teamId, String(publicKey!.fingerprint)));
    expect(sealed).toMatchObject({ vault: 'local-aes-gcm', sealed: expect.any(String) });
    expect(JSON.stringify(sealed)).not.toContain('PRIVATE KEY');
    expect(Buffer.from(String(sealed!.sealed), 'base64').toString('latin1')).not.toContain('PRIVATE KEY');
  });

  it('answers 404 for the keys of a team that never published and for an attestation a CSAF disclosure does not have', async () => {
    const { api, teamId } = await createTeamWithKey();
    expect((await request('GET', `/api/disclosures/publishers/${teamId}/keys`)).status).toBe(404);
    // A malformed path id is a resource that does not exist, as elsewhere in the API.
    expect((await request('GET', '/api/disclosures/publishers/not-a-team/keys')).status).toBe(404);
    const disclosure = await publish(api, teamId, 'csaf');
    expect((await request('GET', `/api/disclosures/${disclosure.public_slug}/attestation`)).status).toBe(404);
    expect((await request('GET', '/api/disclosures/no-such-disclosure/signature')).status).toBe(404);
  });

  it('rotates with the admin CLI: the server signs with the key the CLI sealed, and both keys verify', async () => {
    const { api, teamId } = await createTeamWithKey();
    const before = await publish(api, teamId, 'cyclonedx_vex');
    const root = resolve(import.meta.dirname, '../..');
    // The CLI finds the seal file through the data directory, as an operator's shell would (no inherited variable).
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
    delete env.PUBLISHER_KEY_SEAL_FILE;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [await adminBundle(), 'publisher-key', 'rotate', '--team', teamId],
      { cwd: root, env },
    );
    const rotated = JSON.parse(stdout) as { fingerprint: string; created_at: string };
    expect(rotated.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    expect(stdout).not.toMatch(/PRIVATE KEY/);

    const after = await publish(api, teamId, 'cyclonedx_vex');
    expect(after.public_key_fingerprint).toBe(rotated.fingerprint);
    const env2 = gpgHome();
    const dir = mkdtempSync(join(tmpdir(), 'vexdesk-cli-rotation-'));
    const keyFile = await download(dir, after.links, ['public_keys']);
    expect(run('gpg', ['--batch', '--import', keyFile.public_keys!], { cwd: dir, env: env2 })).toMatchObject({
      status: 0,
    }); // on failure, gpg's output is in the message
    for (const disclosure of [before, after]) {
      const names = await download(dir, disclosure.links, ['raw', 'signature']);
      expect(gpgVerify(env2, dir, names.signature!, names.raw!)).toMatchObject({
        status: 0,
        goodsig: true,
        fingerprint: disclosure.public_key_fingerprint,
      });
    }
  });
});
