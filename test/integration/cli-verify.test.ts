/**
 * The client CLI's whoami and verify (docs/ci.md, docs/disclosure-verification.md) run as a child process
 * against the real local server.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../../shared/service/config';
import { s3Client } from '../../shared/service/aws-s3';
import { Disclosures } from '../../shared/service/disclosures/disclosures';
import { createTeamWithKey } from '../support/factories';
import { baseUrl } from '../support/http-client';
import { seedReleaseWithFindings } from '../support/seed';
import { vexdesk, as } from '../support/cli-runs';

describe('vexdesk whoami', () => {
  it("prints the credential's team, caller, scopes and expiry", async () => {
    const team = await createTeamWithKey(['products:read', 'sboms:read'], { expiresInDays: 30 });

    const json = await vexdesk(['whoami', '--json'], as(team));
    const human = await vexdesk(['whoami', '--url', baseUrl(), '--token', team.key], {});

    expect(json.code).toBe(0);
    expect(json.json).toMatchObject({
      team: { id: team.teamId },
      caller: { type: 'service_account' },
      scopes: ['products:read', 'sboms:read'],
      key: { id: team.keyId, name: team.keyName },
    });
    expect(json.json.key.expiresAt).toEqual(expect.any(String));
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(team.teamId);
    expect(human.stdout).toContain('products:read, sboms:read');
  });
});

describe('vexdesk verify', () => {
  async function publishedDisclosure() {
    const team = await createTeamWithKey();
    const seeded = await seedReleaseWithFindings(team.api, team.teamId, 2);
    await team.api.post('/api/dispositions', {
      vulnerabilityId: seeded.findings[0]!.id,
      status: 'not_affected',
      justification: 'component_not_present',
    });
    const document = (
      await team.api.post(`/api/releases/${seeded.release.id}/vex`, { format: 'openvex', author: 'PSIRT' })
    ).body.data;
    await team.api.post(`/api/vex/${document.id}/submit`, { comment: 'ready' });
    await team.api.post(`/api/vex/${document.id}/approve`, {});
    const published = await team.api.post(`/api/vex/${document.id}/publish`, {});
    if (published.status !== 200) throw new Error(`publish failed: ${published.status} ${published.text}`);
    return { slug: published.body.disclosure.public_slug as string, teamId: team.teamId };
  }

  /** One untouched disclosure for the tests that only read it (the tampering test publishes its own). */
  let untouched: ReturnType<typeof publishedDisclosure> | undefined;
  const untouchedDisclosure = () => (untouched ??= publishedDisclosure());

  /** The team's key file and current fingerprint, as a customer would fetch them once and keep them. */
  async function publisherKeys(teamId: string) {
    const [armored, listed] = await Promise.all([
      fetch(`${baseUrl()}/api/disclosures/publishers/${teamId}/keys?format=asc`).then((response) => response.text()),
      fetch(`${baseUrl()}/api/disclosures/publishers/${teamId}/keys`).then(
        (response) => response.json() as Promise<{ data: { fingerprint: string }[] }>,
      ),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-keys-')), `${teamId}.asc`);
    writeFileSync(file, armored);
    return { file, fingerprint: listed.data[0]!.fingerprint };
  }

  it("checks the raw bytes' hash and the OpenPGP signature against the publisher's listed key, by slug or by URL", async () => {
    const { slug, teamId } = await untouchedDisclosure();
    const { fingerprint } = await publisherKeys(teamId);

    const bySlug = await vexdesk(['verify', slug, '--json'], { VEXDESK_URL: baseUrl() });
    const byUrl = await vexdesk(['verify', `${baseUrl()}/api/disclosures/${slug}?format=raw`]);

    expect(bySlug.code).toBe(0);
    expect(bySlug.json).toMatchObject({
      slug,
      content_hash_valid: true,
      hmac_signature: { signed: true, valid: true, checked_by: 'service' },
      public_key_signature: {
        checked: true,
        valid: true,
        key_fingerprint: fingerprint,
        key_source: 'service',
        fingerprint_pinned: null,
      },
    });
    expect(bySlug.json.computed_hash).toBe(bySlug.json.content_hash);
    expect(byUrl.code).toBe(0);
    expect(byUrl.stdout).toMatch(/content hash\s+OK/);
    expect(byUrl.stdout).toMatch(new RegExp(`OpenPGP signature\\s+valid: key ${fingerprint}`));
    expect(byUrl.stdout).toContain('compare its fingerprint with one the publisher states elsewhere');
  });

  it("verifies offline against a pinned key file and fingerprint, and fails on another publisher's key or fingerprint", async () => {
    const [ours, theirs] = await Promise.all([untouchedDisclosure(), publishedDisclosure()]);
    const [ourKeys, theirKeys] = await Promise.all([publisherKeys(ours.teamId), publisherKeys(theirs.teamId)]);
    // gpg prints fingerprints in groups of four.
    const spaced = ourKeys.fingerprint.replace(/(.{4})/g, '$1 ').trim();

    const pinned = await vexdesk(['verify', ours.slug, '--key', ourKeys.file, '--fingerprint', spaced, '--json'], {
      VEXDESK_URL: baseUrl(),
    });
    const wrongKeyFile = await vexdesk(['verify', ours.slug, '--key', theirKeys.file, '--json'], {
      VEXDESK_URL: baseUrl(),
    });
    const wrongFingerprint = await vexdesk(['verify', ours.slug, '--fingerprint', theirKeys.fingerprint], {
      VEXDESK_URL: baseUrl(),
    });
    const badFingerprint = await vexdesk(['verify', ours.slug, '--fingerprint', 'not-hex'], { VEXDESK_URL: baseUrl() });

    expect(pinned.code).toBe(0);
    expect(pinned.json.public_key_signature).toEqual({
      checked: true,
      valid: true,
      key_fingerprint: ourKeys.fingerprint,
      key_source: 'file',
      fingerprint_pinned: ourKeys.fingerprint,
      fingerprint_matches: true,
    });
    expect(wrongKeyFile.code).toBe(1);
    expect(wrongKeyFile.json).toMatchObject({
      content_hash_valid: true,
      public_key_signature: { checked: true, valid: false, key_fingerprint: null, key_source: 'file' },
    });
    expect(wrongFingerprint.code).toBe(1);
    expect(wrongFingerprint.stdout).toContain(`NOT the pinned ${theirKeys.fingerprint}`);
    expect(badFingerprint.code).toBe(2);
    expect(badFingerprint.stderr).toContain('--fingerprint must be an OpenPGP fingerprint');
  });

  it('exits 1 when the stored bytes no longer match the published hash or signature, 3 for an unknown disclosure', async () => {
    const { slug } = await publishedDisclosure();
    const disclosure = await Disclosures.get(slug);
    // What tampering with the bucket behind the service would leave (Object Lock prevents it on AWS).
    await (
      await s3Client()
    ).send(
      new PutObjectCommand({
        Bucket: config().disclosureBucket,
        Key: disclosure.objectKey,
        Body: Buffer.from('{"tampered":true}'),
      }),
    );

    const tampered = await vexdesk(['verify', slug, '--json'], { VEXDESK_URL: baseUrl() });
    const unknown = await vexdesk(['verify', 'no-such-disclosure'], { VEXDESK_URL: baseUrl() });

    expect(tampered.code).toBe(1);
    expect(tampered.json.content_hash_valid).toBe(false);
    expect(tampered.json.public_key_signature).toMatchObject({ checked: true, valid: false });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('404');
  });
});
