import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inTotoStatementOf } from '../../shared/service/disclosures/attestation';
import { checksumFile } from '../../shared/service/disclosures/disclosure-files';
import { dssePae } from '../../shared/service/disclosures/publisher-keys';

const DIGEST = 'a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4';
const openVex = (products: unknown[]) =>
  Buffer.from(
    JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', statements: [{ products }, { products }] }),
  );

describe('in-toto statement of an OpenVEX disclosure', () => {
  it("takes each product with a digest once: an OCI purl's digest (encoded or not) and OpenVEX hashes", () => {
    const oci = `pkg:oci/app@sha256%3A${DIGEST}?repository_url=ghcr.io/acme/app`;
    const statement = JSON.parse(
      inTotoStatementOf(
        openVex([
          { '@id': oci },
          { '@id': `pkg:oci/other@sha256:${DIGEST}` },
          { '@id': 'pkg:generic/tool@1.0', hashes: { 'sha-512': 'AB'.repeat(64), 'sha-256': 'CD'.repeat(32) } },
        ]),
      )!.toString('utf8'),
    );
    expect(statement.subject).toEqual([
      { name: oci, digest: { sha256: DIGEST } },
      { name: `pkg:oci/other@sha256:${DIGEST}`, digest: { sha256: DIGEST } },
      { name: 'pkg:generic/tool@1.0', digest: { sha512: 'ab'.repeat(64), sha256: 'cd'.repeat(32) } },
    ]);
    expect(statement).toMatchObject({
      _type: 'https://in-toto.io/Statement/v1',
      predicateType: 'https://openvex.dev/ns/v0.2.0',
    });
  });

  it('has no statement when no product names a digest (in-toto requires one per subject)', () => {
    expect(inTotoStatementOf(openVex([{ '@id': 'pkg:generic/app@1.0' }, { '@id': 'pkg:oci/app@1.0' }]))).toBeNull();
  });
});

describe('DSSE PAE and checksum lines', () => {
  it('encodes byte lengths, not character counts (DSSE v1)', () => {
    expect(dssePae('t/ü', Buffer.from('héllo')).toString('utf8')).toBe('DSSEv1 4 t/ü 6 héllo');
  });

  it('writes the sha256sum text form: hex, two spaces, the file name', () => {
    expect(checksumFile('sha256', Buffer.from('abc'), 'x.json')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  x.json\n',
    );
  });
});

describe('local key vault', () => {
  it('seals with a 0600 key file, opens only with the same context, never returns the plaintext in the sealed form', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vexdesk-vault-')), 'seal.key');
    Object.assign(process.env, {
      TABLE_NAME: 't',
      SBOM_BUCKET: 's',
      DISCLOSURE_BUCKET: 'd',
      PUBLIC_BASE_URL: 'https://vex.example.com',
      PUBLISHER_KEY_SEAL_FILE: file,
    });
    const { keyVault } = await import('../../shared/service/disclosures/key-vault');
    const vault = keyVault();
    const secret = Buffer.from('-----BEGIN PGP PRIVATE KEY BLOCK-----');
    const sealed = await vault.seal(secret, { teamId: 'a', fingerprint: 'F' });

    expect(vault.kind).toBe('local-aes-gcm');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(sealed, 'base64').includes(secret)).toBe(false);
    expect(await vault.open(sealed, { fingerprint: 'F', teamId: 'a' })).toEqual(secret);
    await expect(vault.open(sealed, { teamId: 'b', fingerprint: 'F' })).rejects.toThrow();
  });
});
