/**
 * Each team's publisher key: an OpenPGP
 * v4 EdDSA key on Ed25519 ("ed25519Legacy", algorithm 22), which gpg 2.2 (Debian
 * bookworm) and openpgp.js both handle; RFC 9580's v6 Ed25519 keys are not
 * read by gpg before 2.5. The same Ed25519 key pair signs the DSSE envelopes
 * and is published as a JWK, so one key verifies with gpg, openssl and JOSE
 * tools alike.
 *
 * Storage: the public half in `TEAM#<t>#PUBLISHER_KEYS` (the only team data the
 * public disclosures function may read), the private half sealed by the key
 * vault (KMS on AWS) in the team partition, a head item naming the current
 * key. A key is generated on first need; rotation adds one and moves the head,
 * and old keys stay listed so older signatures keep verifying.
 *
 * Other modules call only: `signDetached`, `signDsse`, `publicKeys`,
 * `armoredPublicKeys`, `jwks`, `verifyDetached`, `rotate`.
 */
import { createPrivateKey, createPublicKey, sign as signRaw, type KeyObject } from 'node:crypto';
import type { PrivateKey } from 'openpgp';
import { keys } from '../data/keys';
import {
  getItem,
  queryAll,
  transactWrite,
  tx,
  TransactionFailedError,
  type Item,
  type TransactItem,
} from '../data/table-client';
import { keyVault } from './key-vault';
import { verifyDetachedSignature } from './openpgp-verify';

export const PUBLISHER_KEY_ALGORITHM = 'EdDSA Ed25519 (OpenPGP v4, algorithm 22)';

export interface PublisherPublicKey {
  fingerprint: string;
  /** The 64-bit OpenPGP key id gpg prints ("using EDDSA key …" shows the fingerprint). */
  keyId: string;
  algorithm: string;
  armored: string;
  jwk: Ed25519Jwk;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

interface SigningMaterial {
  fingerprint: string;
  openpgpKey: PrivateKey;
  ed25519: KeyObject;
}

async function openpgpModule() {
  return import('openpgp');
}

/** PKCS#8 prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The node KeyObject of an OpenPGP EdDSA key: its secret is the RFC 8032 seed. */
function ed25519Of(key: PrivateKey): KeyObject {
  const params = key.keyPacket as unknown as { privateParams?: { seed?: Uint8Array }; publicParams: { Q: Uint8Array } };
  const seed = params.privateParams?.seed;
  if (!seed || seed.length !== 32) throw new Error('publisher key has no Ed25519 seed');
  const keyObject = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(seed)]),
    format: 'der',
    type: 'pkcs8',
  });
  // The OpenPGP public point is 0x40 || the raw Ed25519 key: both views must be one key.
  const x = createPublicKey(keyObject).export({ format: 'jwk' }).x;
  if (x !== Buffer.from(params.publicParams.Q.subarray(1)).toString('base64url'))
    throw new Error('publisher key halves disagree');
  return keyObject;
}

function jwkOf(fingerprint: string, ed25519: KeyObject): Ed25519Jwk {
  const { x } = createPublicKey(ed25519).export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: String(x), kid: fingerprint, use: 'sig', alg: 'EdDSA' };
}

function toPublicKey(item: Item): PublisherPublicKey {
  return {
    fingerprint: String(item.fingerprint),
    keyId: String(item.keyId),
    algorithm: String(item.algorithm),
    armored: String(item.armored),
    jwk: item.jwk as Ed25519Jwk,
    createdAt: String(item.createdAt),
    expiresAt: typeof item.expiresAt === 'string' ? item.expiresAt : null,
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : null,
  };
}

const sealContext = (teamId: string, fingerprint: string) => ({
  purpose: 'vexdesk-publisher-key',
  teamId,
  fingerprint,
});

/** A new key, the `sequence`-th of the team, and the items that store it (not yet written). */
async function generate(
  teamId: string,
  sequence: number,
): Promise<{ material: SigningMaterial; items: TransactItem[]; publicKey: PublisherPublicKey }> {
  const openpgp = await openpgpModule();
  const { privateKey } = await openpgp.generateKey({
    type: 'ecc',
    curve: 'ed25519Legacy',
    userIDs: [{ name: `Vexdesk publisher ${teamId}` }],
    // A signing key only: no encryption subkey, nothing is ever encrypted to it.
    subkeys: [],
    format: 'object',
  });
  const fingerprint = privateKey.getFingerprint().toUpperCase();
  const ed25519 = ed25519Of(privateKey);
  const createdAt = privateKey.getCreationTime().toISOString();
  const publicKey: PublisherPublicKey = {
    fingerprint,
    keyId: privateKey.getKeyID().toHex().toUpperCase(),
    algorithm: PUBLISHER_KEY_ALGORITHM,
    armored: privateKey.toPublic().armor(),
    jwk: jwkOf(fingerprint, ed25519),
    createdAt,
    expiresAt: null,
    revokedAt: null,
  };
  const vault = keyVault();
  const sealed = await vault.seal(Buffer.from(privateKey.armor(), 'utf8'), sealContext(teamId, fingerprint));
  const items = [
    tx.create({
      ...keys.publisherPrivateKey(teamId, fingerprint),
      entity: 'PublisherPrivateKey',
      fingerprint,
      vault: vault.kind,
      sealed,
      createdAt,
    }),
    tx.create({ ...keys.publisherKey(teamId, sequence), entity: 'PublisherKey', sequence, ...publicKey }),
  ];
  return { material: { fingerprint, openpgpKey: privateKey, ed25519 }, items, publicKey };
}

function headItem(teamId: string, key: PublisherPublicKey, sequence: number): Item {
  return {
    ...keys.publisherKeyHead(teamId),
    entity: 'PublisherKeyHead',
    fingerprint: key.fingerprint,
    createdAt: key.createdAt,
    sequence,
  };
}

/** Opened keys by fingerprint: a key never changes once written, only which one is current. */
const opened = new Map<string, Promise<SigningMaterial>>();

async function openKey(teamId: string, fingerprint: string): Promise<SigningMaterial> {
  const cacheKey = `${teamId}/${fingerprint}`;
  let material = opened.get(cacheKey);
  if (!material) {
    material = (async () => {
      const item = await getItem(keys.publisherPrivateKey(teamId, fingerprint));
      if (!item) throw new Error(`publisher key ${fingerprint} has no private half`);
      const armored = (await keyVault().open(String(item.sealed), sealContext(teamId, fingerprint))).toString('utf8');
      const openpgp = await openpgpModule();
      const openpgpKey = await openpgp.readPrivateKey({ armoredKey: armored });
      if (openpgpKey.getFingerprint().toUpperCase() !== fingerprint)
        throw new Error('sealed publisher key does not match its fingerprint');
      return { fingerprint, openpgpKey, ed25519: ed25519Of(openpgpKey) };
    })();
    material.catch(() => opened.delete(cacheKey));
    opened.set(cacheKey, material);
  }
  return material;
}

/**
 * The team's current signing key; the first caller generates it. The head is
 * read on every call (one GetItem), so a rotation made by another process (the
 * admin CLI, another Lambda) takes effect at once.
 */
async function currentKey(teamId: string): Promise<SigningMaterial> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const head = await getItem(keys.publisherKeyHead(teamId));
    if (head) return openKey(teamId, String(head.fingerprint));
    const fresh = await generate(teamId, 1);
    try {
      await transactWrite([...fresh.items, tx.create(headItem(teamId, fresh.publicKey, 1))]);
      opened.set(`${teamId}/${fresh.material.fingerprint}`, Promise.resolve(fresh.material));
      return fresh.material;
    } catch (error) {
      // Another request generated the team's first key meanwhile: use that one.
      if (!(error instanceof TransactionFailedError)) throw error;
    }
  }
  throw new Error("could not settle the team's first publisher key");
}

export interface DetachedSignature {
  armoredSignature: string;
  fingerprint: string;
}

export const PublisherKeys = {
  /** An armored OpenPGP detached signature over `bytes` with the team's current key (`gpg --verify sig file`). */
  async signDetached(teamId: string, bytes: Buffer): Promise<DetachedSignature> {
    const key = await currentKey(teamId);
    const openpgp = await openpgpModule();
    const message = await openpgp.createMessage({ binary: new Uint8Array(bytes) });
    // openpgp types the result as a possible stream (its stream types do not resolve here); a binary message signs to a string.
    const armoredSignature: unknown = await openpgp.sign({
      message,
      signingKeys: key.openpgpKey,
      detached: true,
      format: 'armored',
    });
    if (typeof armoredSignature !== 'string') throw new Error('openpgp returned no armored signature');
    return { armoredSignature, fingerprint: key.fingerprint };
  },

  /** A DSSE envelope (in-toto, as `vexctl attest` makes): Ed25519 over PAE(payloadType, payload). */
  async signDsse(teamId: string, payloadType: string, payload: Buffer): Promise<DsseEnvelope> {
    const key = await currentKey(teamId);
    const sig = signRaw(null, dssePae(payloadType, payload), key.ed25519);
    return {
      payloadType,
      payload: payload.toString('base64'),
      signatures: [{ keyid: key.fingerprint, sig: sig.toString('base64') }],
    };
  },

  /** Every key the team has had, oldest first: rotation never removes one. */
  async publicKeys(teamId: string): Promise<PublisherPublicKey[]> {
    return (await queryAll(keys.publisherKeyPrefix(teamId))).map(toPublicKey);
  },

  /** All of them in one armored block, for `gpg --import`. */
  async armoredPublicKeys(teamId: string): Promise<string | null> {
    const list = await PublisherKeys.publicKeys(teamId);
    if (list.length === 0) return null;
    const openpgp = await openpgpModule();
    const packets = await Promise.all(
      list.map(async (key) => (await openpgp.readKey({ armoredKey: key.armored })).write()),
    );
    return openpgp.armor(openpgp.enums.armor.publicKey, Buffer.concat(packets.map((bytes) => Buffer.from(bytes))));
  },

  async jwks(teamId: string): Promise<{ keys: Ed25519Jwk[] }> {
    return { keys: (await PublisherKeys.publicKeys(teamId)).map((key) => key.jwk) };
  },

  /**
   * Checks an armored detached signature against the team's listed keys.
   * `valid: false` for a signature that does not verify, or by a key the team
   * does not list.
   */
  async verifyDetached(
    teamId: string,
    bytes: Buffer,
    armoredSignature: string,
  ): Promise<{ valid: boolean; fingerprint: string | null }> {
    const list = await PublisherKeys.publicKeys(teamId);
    const { valid, fingerprint } = await verifyDetachedSignature(
      new Uint8Array(bytes),
      armoredSignature,
      list.map((key) => key.armored),
    );
    return { valid, fingerprint };
  },

  /**
   * Adds a new current key; the old ones stay listed (and keep verifying what
   * they signed). `alongside(key)` adds items (the audit entry) to the same transaction.
   */
  async rotate(
    teamId: string,
    alongside: (key: PublisherPublicKey, previous: string | null) => TransactItem[] = () => [],
  ): Promise<PublisherPublicKey> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const head = await getItem(keys.publisherKeyHead(teamId));
      const sequence = head ? Number(head.sequence) + 1 : 1;
      const fresh = await generate(teamId, sequence);
      const headWrite = head
        ? tx.put(
            headItem(teamId, fresh.publicKey, sequence),
            '#fingerprint = :previous',
            { '#fingerprint': 'fingerprint' },
            { ':previous': head.fingerprint },
          )
        : tx.create(headItem(teamId, fresh.publicKey, sequence));
      try {
        await transactWrite([
          ...fresh.items,
          headWrite,
          ...alongside(fresh.publicKey, head ? String(head.fingerprint) : null),
        ]);
        return fresh.publicKey;
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
      }
    }
    throw new Error('the publisher key kept changing during rotation; retry');
  },
};

/** DSSE pre-authentication encoding (DSSE protocol v1): what the signature covers. */
export function dssePae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}
