/**
 * Public disclosures: immutable, signed snapshots of published VEX documents
 * (spec "Disclosures (public)"). The bytes are written once (S3 conditional
 * create; Object Lock on AWS); `content_hash` is the SHA-256 of exactly the
 * bytes `?format=raw` serves. Each publication takes the next number in a
 * global and a per-format sequence, so page N of the list is one range read:
 * O(limit) whatever the page.
 */
import { randomUUID } from 'node:crypto';
import { getObject, putObject, s3ErrorStatus } from '../aws-s3';
import { config } from '../config';
import { keys } from '../data/keys';
import { getItem, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import { ConflictError, NotFoundError } from '../errors';
import type { DisclosureSnapshotView, DisclosureView } from '../schemas/disclosures';
import type { VexFormat } from '../schemas/vex';
import { trimChar } from '../text';
import { currentSigningKey, hmacSha256Hex, sha256Hex, signatureMatches } from './signing';
import {
  checksumFile,
  DISCLOSURE_FILES,
  disclosureFileName,
  disclosureFileObjectKey,
  disclosureFilePath,
  publicKeysPath,
  rawFileName,
  type DisclosureFileKind,
} from './disclosure-files';
import { inTotoStatementOf, IN_TOTO_PAYLOAD_TYPE } from './attestation';
import { PublisherKeys, PUBLISHER_KEY_ALGORITHM } from './publisher-keys';

export interface Disclosure {
  id: string;
  slug: string;
  documentId: string;
  version: number;
  format: VexFormat;
  contentHash: string;
  signature: string | null;
  signingKeyId: string | null;
  publishedAt: string;
  product: { name: string; vendor: string | null };
  release: { version: string };
  objectKey: string;
  contentType: string;
  /** Publishing team; absent on disclosures published before public-key signatures. */
  teamId?: string;
  /** Fingerprint of the publisher key behind the `.asc` (and the DSSE envelope). */
  publicKeyFingerprint?: string;
  /** Files stored beside the snapshot (disclosure-files.ts). */
  files?: DisclosureFileKind[];
}

export function toDisclosureView(disclosure: Disclosure) {
  return {
    id: disclosure.id,
    document_id: disclosure.documentId,
    version: disclosure.version,
    format: disclosure.format,
    public_slug: disclosure.slug,
    content_hash: `sha256:${disclosure.contentHash}`,
    signed: disclosure.signature !== null,
    published_at: disclosure.publishedAt,
    product: disclosure.product,
    release: disclosure.release,
    links: disclosureLinks(disclosure),
  };
}

/** Relative paths, like the spec's `self` and `raw`: a client finds every file from the disclosure. */
function disclosureLinks(disclosure: Disclosure): DisclosureView['links'] {
  const links: DisclosureView['links'] = {
    self: `/api/disclosures/${disclosure.slug}`,
    raw: `/api/disclosures/${disclosure.slug}?format=raw`,
    verify: `/api/disclosures/${disclosure.slug}/verify`,
  };
  for (const kind of disclosure.files ?? []) links[kind] = disclosureFilePath(disclosure.slug, kind);
  if (disclosure.teamId && disclosure.files?.includes('signature'))
    links.public_keys = publicKeysPath(disclosure.teamId, 'asc');
  return links;
}

function slugPart(value: string): string {
  return trimChar(value.toLowerCase().replace(/[^a-z0-9]+/g, '-'), '-').slice(0, 60) || 'x';
}

/** Stable and unique: one slug per (document, version); the document id keeps it unique across teams. */
export function disclosureSlug(
  productSlug: string,
  releaseVersion: string,
  format: VexFormat,
  documentId: string,
  version: number,
): string {
  return `${slugPart(productSlug)}-${slugPart(releaseVersion)}-${format.replace('_', '-')}-${documentId.replace(/-/g, '').slice(0, 12)}-v${version}`;
}

function toDisclosure(item: Item): Disclosure {
  const { pk: _pk, sk: _sk, entity: _entity, ...fields } = item;
  return fields as unknown as Disclosure; // written only by disclosureItem
}

/**
 * Writes the snapshot bytes once. A retry (or a racing publish) of the same
 * document version finds identical bytes already stored and carries on; any
 * other content under that key is refused.
 */
async function writeSnapshotOnce(objectKey: string, bytes: Buffer, contentType: string): Promise<void> {
  const bucket = config().disclosureBucket;
  try {
    await putObject({ Bucket: bucket, Key: objectKey, Body: bytes, ContentType: contentType, IfNoneMatch: '*' });
  } catch (error) {
    const status = s3ErrorStatus(error);
    if (status !== 412 && status !== 409) throw error;
    const existing = await getObject({ Bucket: bucket, Key: objectKey });
    const stored = Buffer.from(await existing.Body!.transformToByteArray()); // GetObject always has a Body on success
    if (!stored.equals(bytes))
      throw new ConflictError('A different snapshot is already stored for this document version', 'snapshot_exists');
  }
}

/**
 * Writes a file beside the snapshot once. A signature is not reproducible (its
 * creation time and salt differ per call), so a retried publish keeps the file
 * the first attempt stored and answers it.
 */
async function writeFileOnce(objectKey: string, bytes: Buffer, contentType: string): Promise<Buffer> {
  const bucket = config().disclosureBucket;
  try {
    await putObject({ Bucket: bucket, Key: objectKey, Body: bytes, ContentType: contentType, IfNoneMatch: '*' });
    return bytes;
  } catch (error) {
    const status = s3ErrorStatus(error);
    if (status !== 412 && status !== 409) throw error;
    const existing = await getObject({ Bucket: bucket, Key: objectKey });
    return Buffer.from(await existing.Body!.transformToByteArray()); // GetObject always has a Body on success
  }
}

/**
 * The public-key side of a publication (issue 11 item 1): `.asc`, `.sha256`,
 * `.sha512`, and for OpenVEX the DSSE attestation, all stored beside the
 * snapshot before the transaction that makes the disclosure visible.
 */
async function writeSignedFiles(
  teamId: string,
  slug: string,
  format: VexFormat,
  bytes: Buffer,
): Promise<{ fingerprint: string; files: DisclosureFileKind[] }> {
  const fileName = rawFileName(slug);
  const put = (kind: DisclosureFileKind, content: Buffer) =>
    writeFileOnce(disclosureFileObjectKey(slug, kind), content, DISCLOSURE_FILES[kind].contentType);
  const { armoredSignature, fingerprint } = await PublisherKeys.signDetached(teamId, bytes);
  const stored = await put('signature', Buffer.from(armoredSignature, 'utf8'));
  // A retry keeps the first attempt's signature: name the key that made that one.
  const storedBy =
    stored.toString('utf8') === armoredSignature
      ? fingerprint
      : ((await PublisherKeys.verifyDetached(teamId, bytes, stored.toString('utf8'))).fingerprint ?? fingerprint);
  await put('sha256', Buffer.from(checksumFile('sha256', bytes, fileName), 'utf8'));
  await put('sha512', Buffer.from(checksumFile('sha512', bytes, fileName), 'utf8'));
  const files: DisclosureFileKind[] = ['signature', 'sha256', 'sha512'];
  const statement = format === 'openvex' ? inTotoStatementOf(bytes) : null;
  if (statement) {
    await put(
      'attestation',
      Buffer.from(JSON.stringify(await PublisherKeys.signDsse(teamId, IN_TOTO_PAYLOAD_TYPE, statement)), 'utf8'),
    );
    files.push('attestation');
  }
  return { fingerprint: storedBy, files };
}

/** One published version of a VEX document, as listed under a disclosure's `snapshots`. */
export interface PreparedDisclosure {
  disclosure: Disclosure;
  /** Items to commit in the publish transaction (disclosure, per-document entry, sequence counters and index entries). */
  transactItems: TransactItem[];
}

export const Disclosures = {
  /**
   * Stores and signs the snapshot, and returns the transaction items that make
   * it visible; the caller commits them with the document's state change.
   */
  async prepare(input: {
    documentId: string;
    version: number;
    format: VexFormat;
    bytes: Buffer;
    contentType: string;
    publishedAt: string;
    productSlug: string;
    product: { name: string; vendor: string | null };
    release: { version: string };
    teamId: string;
  }): Promise<PreparedDisclosure> {
    const slug = disclosureSlug(
      input.productSlug,
      input.release.version,
      input.format,
      input.documentId,
      input.version,
    );
    const objectKey = keys.disclosureObject(slug);
    await writeSnapshotOnce(objectKey, input.bytes, input.contentType);
    const signed = await writeSignedFiles(input.teamId, slug, input.format, input.bytes);
    const signingKey = await currentSigningKey();
    const disclosure: Disclosure = {
      id: randomUUID(),
      slug,
      documentId: input.documentId,
      version: input.version,
      format: input.format,
      contentHash: sha256Hex(input.bytes),
      signature: signingKey ? hmacSha256Hex(input.bytes, signingKey) : null,
      signingKeyId: signingKey?.keyId ?? null,
      publishedAt: input.publishedAt,
      product: input.product,
      release: input.release,
      objectKey,
      contentType: input.contentType,
      teamId: input.teamId,
      publicKeyFingerprint: signed.fingerprint,
      files: signed.files,
    };
    const counters = await Promise.all(
      (['all', input.format] as const).map(async (scope) => {
        const counter = await getItem(keys.disclosureCounter(scope));
        return { scope, current: Number(counter?.count ?? 0) };
      }),
    );
    const summary = toDisclosureView(disclosure);
    const transactItems: TransactItem[] = [
      tx.create({ ...keys.disclosure(slug), entity: 'Disclosure', ...disclosure }),
      tx.create({
        ...keys.disclosureOfDocument(input.documentId, input.version),
        entity: 'DisclosureOfDocument',
        slug,
        version: input.version,
        publishedAt: input.publishedAt,
        contentHash: disclosure.contentHash,
      }),
      ...counters.flatMap(({ scope, current }) => [
        // Optimistic: the counter must still hold the value read, so two publications never share a number.
        tx.put(
          { ...keys.disclosureCounter(scope), entity: 'DisclosureCounter', count: current + 1 },
          current === 0 ? 'attribute_not_exists(pk) OR #count = :current' : '#count = :current',
          { '#count': 'count' },
          { ':current': current },
        ),
        tx.create({ ...keys.disclosureIndexEntry(scope, current + 1), entity: 'DisclosureIndexEntry', summary }),
      ]),
    ];
    return { disclosure, transactItems };
  },

  async list(query: { page: number; limit: number; format?: VexFormat | undefined }) {
    const scope = query.format ?? 'all';
    const total = Number((await getItem(keys.disclosureCounter(scope)))?.count ?? 0);
    const totalPages = Math.max(1, Math.ceil(total / query.limit));
    // Newest first: page 1 holds sequence numbers total … total-limit+1.
    const high = total - (query.page - 1) * query.limit;
    const low = Math.max(1, high - query.limit + 1);
    const data =
      high < 1
        ? []
        : (
            await queryAll({
              ...keys.disclosureIndexPartition(scope),
              skBetween: [keys.disclosureSequenceKey(low), keys.disclosureSequenceKey(high)],
              descending: true,
            })
          ).map((item) => item.summary as DisclosureView); // written by publish, toDisclosureView
    const link = (page: number) =>
      `/api/disclosures?page=${page}&limit=${query.limit}${query.format ? `&format=${query.format}` : ''}`;
    return {
      data,
      meta: {
        page: query.page,
        limit: query.limit,
        total,
        totalPages,
        hasNextPage: query.page < totalPages,
        hasPrevPage: query.page > 1,
      },
      links: {
        self: link(query.page),
        first: link(1),
        last: link(totalPages),
        next: query.page < totalPages ? link(query.page + 1) : null,
      },
    };
  },

  async get(slug: string): Promise<Disclosure> {
    const item = await getItem(keys.disclosure(slug));
    if (!item) throw new NotFoundError('Disclosure');
    return toDisclosure(item);
  },

  async readBytes(disclosure: Disclosure): Promise<Buffer> {
    const object = await getObject({ Bucket: config().disclosureBucket, Key: disclosure.objectKey });
    return Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
  },

  /** Every published version of the same VEX document, oldest first. */
  async snapshots(disclosure: Disclosure): Promise<DisclosureSnapshotView[]> {
    const { pk, skPrefix } = keys.disclosureOfDocumentPrefix(disclosure.documentId);
    return (await queryAll({ pk, skPrefix })).map((item) => ({
      version: Number(item.version),
      public_slug: String(item.slug),
      content_hash: `sha256:${String(item.contentHash)}`,
      published_at: String(item.publishedAt),
      links: { self: `/api/disclosures/${String(item.slug)}`, raw: `/api/disclosures/${String(item.slug)}?format=raw` },
    }));
  },

  /** A disclosure for the public read: metadata, sibling snapshots and the stored bytes. */
  async read(slug: string): Promise<{ disclosure: Disclosure; bytes: Buffer; snapshots: DisclosureSnapshotView[] }> {
    const disclosure = await Disclosures.get(slug);
    const [bytes, snapshots] = await Promise.all([
      Disclosures.readBytes(disclosure),
      Disclosures.snapshots(disclosure),
    ]);
    return { disclosure, bytes, snapshots };
  },

  /** A file stored beside the snapshot, with the name it is downloaded as; 404 when this disclosure has none. */
  async readFile(
    slug: string,
    kind: DisclosureFileKind,
  ): Promise<{ disclosure: Disclosure; bytes: Buffer; fileName: string; contentType: string }> {
    const disclosure = await Disclosures.get(slug);
    if (!disclosure.files?.includes(kind))
      throw new NotFoundError(kind === 'attestation' ? 'Attestation' : 'Signature file');
    const object = await getObject({ Bucket: config().disclosureBucket, Key: disclosureFileObjectKey(slug, kind) });
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    return {
      disclosure,
      bytes,
      fileName: disclosureFileName(slug, kind),
      contentType: DISCLOSURE_FILES[kind].contentType,
    };
  },

  /**
   * Spec "Verification rules": recompute over the stored bytes; null when the
   * signing key is absent. `public_key_signature` adds the OpenPGP check
   * against the team's published keys (what `gpg --verify` does offline).
   */
  async verify(slug: string) {
    const disclosure = await Disclosures.get(slug);
    const bytes = await Disclosures.readBytes(disclosure);
    const recomputedHash = sha256Hex(bytes);
    const key = await currentSigningKey();
    let signatureValid: boolean | null = null;
    if (disclosure.signature && key && key.keyId === disclosure.signingKeyId)
      signatureValid = signatureMatches(bytes, disclosure.signature, key);
    return {
      public_slug: disclosure.slug,
      content_hash: `sha256:${disclosure.contentHash}`,
      content_hash_valid: recomputedHash === disclosure.contentHash,
      signed: disclosure.signature !== null,
      signature_valid: signatureValid,
      signature_algorithm: disclosure.signature ? 'HMAC-SHA256' : null,
      signing_key_id: disclosure.signingKeyId,
      public_key_signature: await verifyPublicKeySignature(disclosure, bytes),
      verified_at: new Date().toISOString(),
    };
  },
};

/** `signed: false` (and nulls) for disclosures published before public-key signatures existed. */
async function verifyPublicKeySignature(disclosure: Disclosure, bytes: Buffer) {
  if (!disclosure.teamId || !disclosure.files?.includes('signature')) {
    return { signed: false, signature_valid: null, algorithm: null, key_fingerprint: null, key_status: null };
  }
  const { bytes: signature } = await Disclosures.readFile(disclosure.slug, 'signature');
  const [result, listed] = await Promise.all([
    PublisherKeys.verifyDetached(disclosure.teamId, bytes, signature.toString('utf8')),
    PublisherKeys.publicKeys(disclosure.teamId),
  ]);
  const signer = listed.find((candidate) => candidate.fingerprint === result.fingerprint);
  return {
    signed: true,
    signature_valid: result.valid,
    algorithm: PUBLISHER_KEY_ALGORITHM,
    key_fingerprint: result.fingerprint ?? disclosure.publicKeyFingerprint ?? null,
    // Rotation keeps old keys listed: `listed` is what lets an old disclosure still verify.
    key_status: signer ? (signer.revokedAt ? ('revoked' as const) : ('listed' as const)) : ('unknown' as const),
  };
}
