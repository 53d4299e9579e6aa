/**
 * The disclosure signing key: `DISCLOSURE_SIGNING_KEY`
 * locally, a Secrets Manager secret `{ "keyId", "key" }` on AWS. Every
 * signature records the key id, so after a rotation old disclosures verify as
 * `signature_valid: null` (key absent) rather than false.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { secretsManager } from '../aws-clients';
import { config } from '../config';

export interface SigningKey {
  keyId: string;
  key: Buffer;
}

let cached: Promise<SigningKey | undefined> | undefined;

async function loadSigningKey(): Promise<SigningKey | undefined> {
  const { signingSecretId, signingKey } = config();
  if (signingSecretId) {
    const { sdk, client } = await secretsManager();
    const secret = await client.send(new sdk.GetSecretValueCommand({ SecretId: signingSecretId }));
    const parsed = JSON.parse(secret.SecretString ?? '{}') as { keyId?: string; key?: string };
    if (!parsed.keyId || !parsed.key) throw new Error('signing secret must be JSON { "keyId", "key" }');
    return { keyId: parsed.keyId, key: Buffer.from(parsed.key, 'utf8') };
  }
  if (signingKey) {
    // The id is derived from the key, so changing the variable is a rotation.
    return {
      keyId: `local-${createHash('sha256').update(signingKey).digest('hex').slice(0, 16)}`,
      key: Buffer.from(signingKey, 'utf8'),
    };
  }
  return undefined;
}

/** The configured key, loaded once per process (a cold start re-reads a rotated secret). */
export function currentSigningKey(): Promise<SigningKey | undefined> {
  cached ??= loadSigningKey();
  return cached;
}

export function hmacSha256Hex(bytes: Buffer, key: SigningKey): string {
  return createHmac('sha256', key.key).update(bytes).digest('hex');
}

/** Spec "Verification rules" 2: compare in constant time. */
export function signatureMatches(bytes: Buffer, signatureHex: string, key: SigningKey): boolean {
  const expected = Buffer.from(hmacSha256Hex(bytes, key), 'hex');
  const given = Buffer.from(signatureHex, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
