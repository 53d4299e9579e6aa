/**
 * SHA-256 / HMAC-SHA-256 over node:crypto in the shape the AWS SDK's signer expects, with HMAC keys made
 * once: the SDK's own hash makes a key object from the raw key for every HMAC. Every DynamoDB call signs
 * with the day's signing key, so a handful of keys serve every call (the local engine's signature check
 * uses it too, shared/local/sigv4-verifier.ts).
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

/** SHA-256 / HMAC-SHA-256 over node:crypto in the shape the signer expects. */
export class NodeSha256 implements Checksum {
  private hash;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.create();
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.create();
  }

  private create() {
    if (this.secret === undefined) return createHash('sha256');
    return createHmac('sha256', secretKeyOf(this.secret));
  }
}

/**
 * HMAC keys as KeyObjects, made once per key: node makes one from a raw key for every createHmac, which
 * costs 25-45 µs (against about 5 µs for the HMAC itself given a KeyObject). A request's signature
 * check uses the day's signing key and the secret's derivation of it: a handful of keys, reused by
 * every request of the day.
 */
const secretKeys = new Map<string, KeyObject>();
const MAX_SECRET_KEYS = 64;

function secretKeyOf(secret: SourceData): KeyObject {
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret, 'utf8')
      : ArrayBuffer.isView(secret)
        ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
        : Buffer.from(secret);
  const id = bytes.toString('base64');
  let key = secretKeys.get(id);
  if (key === undefined) {
    if (secretKeys.size >= MAX_SECRET_KEYS) secretKeys.clear();
    key = createSecretKey(bytes);
    secretKeys.set(id, key);
  }
  return key;
}
