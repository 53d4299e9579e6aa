/**
 * Seals the teams' publisher private keys before they reach the table
 * (never in the table in clear). Two implementations of
 * one interface, chosen by configuration alone, as the SDK endpoints are:
 * - `PUBLISHER_KEY_KMS_KEY_ID` (AWS): KMS Encrypt/Decrypt under the stack's
 *   key; the encryption context binds each ciphertext to its team and key, so
 *   a sealed key copied to another team's item does not open.
 * - `PUBLISHER_KEY_SEAL_FILE` (local runtime): AES-256-GCM under a 32-byte key
 *   generated on first need into that file (0600, in the 0700 data
 *   directory), the context as additional authenticated data.
 * The store code (shared/service/disclosures/publisher-keys.ts) is the same either way.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { kms } from '../aws-clients';
import { config } from '../config';

export type SealContext = Record<string, string>;

export interface KeyVault {
  /** Which vault sealed a value: stored with it, so a value is never opened by the other kind. */
  readonly kind: 'kms' | 'local-aes-gcm';
  seal(plaintext: Buffer, context: SealContext): Promise<string>;
  open(sealed: string, context: SealContext): Promise<Buffer>;
}

export class KeyVaultNotConfiguredError extends Error {
  constructor() {
    super('No publisher key vault: set PUBLISHER_KEY_KMS_KEY_ID (AWS) or PUBLISHER_KEY_SEAL_FILE (local runtime)');
    this.name = 'KeyVaultNotConfiguredError';
  }
}

function kmsVault(keyId: string): KeyVault {
  return {
    kind: 'kms',
    async seal(plaintext, context) {
      const { sdk, client } = await kms();
      const { CiphertextBlob } = await client.send(
        new sdk.EncryptCommand({ KeyId: keyId, Plaintext: plaintext, EncryptionContext: context }),
      );
      if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
      return Buffer.from(CiphertextBlob).toString('base64');
    },
    async open(sealed, context) {
      // KeyId pins the key: a ciphertext made under any other key is refused by KMS.
      const { sdk, client } = await kms();
      const { Plaintext } = await client.send(
        new sdk.DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed, 'base64'),
          EncryptionContext: context,
        }),
      );
      if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
      return Buffer.from(Plaintext);
    },
  };
}

/** Context as canonical bytes (sorted keys), the GCM additional data. */
function contextBytes(context: SealContext): Buffer {
  return Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((name) => [name, context[name]]),
    ),
    'utf8',
  );
}

async function localSealKey(file: string): Promise<Buffer> {
  const existing = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing) {
    if (existing.length !== 32) throw new Error(`${file} is not a 32-byte key`);
    return existing;
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // Written whole beside the file, then linked into place: link() fails if the file exists, so of two creators
  // at once (the server's Lambda instances, the admin CLI) one wins, and nobody reads a file not yet written.
  const draft = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const key = randomBytes(32);
  const handle = await open(draft, 'wx', 0o600);
  try {
    await handle.writeFile(key);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return localSealKey(file);
  } finally {
    await unlink(draft);
  }
  return key;
}

function localVault(file: string): KeyVault {
  let key: Promise<Buffer> | undefined;
  const sealKey = () => (key ??= localSealKey(file));
  return {
    kind: 'local-aes-gcm',
    async seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', await sealKey(), iv).setAAD(contextBytes(context));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    async open(sealed, context) {
      const bytes = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', await sealKey(), bytes.subarray(0, 12)).setAAD(
        contextBytes(context),
      );
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    },
  };
}

let vault: KeyVault | undefined;

/** The configured vault (KMS wins when both are set). */
export function keyVault(): KeyVault {
  if (vault) return vault;
  const { publisherKeyKmsKeyId, publisherKeySealFile } = config();
  if (publisherKeyKmsKeyId) vault = kmsVault(publisherKeyKmsKeyId);
  else if (publisherKeySealFile) vault = localVault(publisherKeySealFile);
  else throw new KeyVaultNotConfiguredError();
  return vault;
}
