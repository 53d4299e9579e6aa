/**
 * SBOM upload (direct, gzip or pre-signed), metadata and download. The
 * original bytes are stored unchanged; `file_hash` is their SHA-256.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PRESIGNED_URL_MAX_SECONDS, s3 } from '../aws-clients';
import { config } from '../config';
import { keys } from '../data/keys';
import { getItem, transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut } from '../audit/audit-log';
import { logger } from '../logger';
import { ConflictError, NotFoundError, PayloadTooLargeError } from '../errors';
import { releaseLockedError, releaseLockedErrorFor } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { MAX_SBOM_BYTES } from '../schemas/sboms';
import { sbomMediaType } from '../sbom/media-type';
import { Releases } from '../releases/releases';
import { type ResolvedRelease } from '../releases/release-store';
import { dispatchScan } from '../scans/scan-dispatch';
import { sbomItem, sbomStore, type ResolvedSbom, type Sbom } from './sbom-store';

// Tenant credentials are refreshed early enough for a URL of this lifetime (shared/aws-clients.ts).
const UPLOAD_URL_TTL_SECONDS = PRESIGNED_URL_MAX_SECONDS;
/** A session (and its staged file) is discarded an hour after its URL expired, as DynamoDB TTL would. */
const UPLOAD_SESSION_GRACE_SECONDS = 3600;

export { defaultSbomFileName, sbomMediaType } from '../sbom/media-type';

/**
 * Content-Disposition with the original name made safe: no quotes, control
 * characters or path separators in the ASCII fallback, and RFC 6266/5987
 * `filename*` carrying the exact UTF-8 name.
 */
export function contentDisposition(fileName: string | null, fallback: string): string {
  // A lone surrogate is valid JSON but makes encodeURIComponent throw: it becomes U+FFFD (as toWellFormed does).
  const name = (fileName ?? fallback).replace(/[\\/]/g, '_').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const ascii = name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '_').replace(/["%;\\]/g, '_').trim() || fallback;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

async function ingest(teamId: string, actor: Actor, resolved: ResolvedRelease, bytes: Buffer, fileName: string | null, alsoCommit: (sbomId: string) => TransactItem[] = () => []): Promise<Sbom> {
  if (bytes.length > MAX_SBOM_BYTES) throw new PayloadTooLargeError(`SBOM content exceeds ${MAX_SBOM_BYTES} bytes`);
  const { release, product } = resolved;
  // Spec rule 2: the release chain (release, SBOM, dispositions) is locked while a VEX document holds it.
  if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
  // The parsers load with the first upload: list, get, download and delete never need them (docs/architecture.md "Cold starts").
  const { parseSbom } = await import('../sbom/parse');
  const parsed = parseSbom(bytes, fileName);
  const id = randomUUID();
  const sbom: Sbom = {
    id,
    teamId,
    productId: product.id,
    releaseId: release.id,
    format: parsed.format,
    encoding: parsed.encoding,
    specVersion: parsed.specVersion,
    toolName: parsed.toolName,
    subject: parsed.subject,
    componentCount: parsed.components.length,
    skipped: parsed.skipped,
    fileHash: createHash('sha256').update(bytes).digest('hex'),
    fileName,
    fileSize: bytes.length,
    objectKey: keys.sbomObject(teamId, product.id, release.id, id),
    inventoryKey: keys.sbomInventoryObject(teamId, product.id, release.id, id),
    createdAt: new Date().toISOString(),
    scan: { status: 'queued', scannedAt: null, findingCount: 0, matchedComponentCount: 0, unmatchedComponentCount: 0 },
  };
  const bucket = config().sbomBucket;
  const sbomKey = keys.sbom(teamId, product.id, release.id, id);
  // Written before the files: a crash between the files and the transaction leaves a record the
  // staging sweep finds (and deletes the files by), never an unreferenced object.
  await sbomStore.stage({ teamId, sbomId: id, sbomKey, objectKeys: [sbom.objectKey, sbom.inventoryKey], stagedAt: sbom.createdAt });
  try {
    await s3().send(new PutObjectCommand({
      Bucket: bucket, Key: sbom.objectKey, Body: bytes, ContentType: sbomMediaType(sbom),
      ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'), Metadata: { sha256: sbom.fileHash },
    }));
    await sbomStore.putInventory(sbom.inventoryKey, parsed.components);
    // The SBOM enters the pending-scan index with its creation: its scan is owed from the moment the client gets 201.
    await transactWrite([
      tx.check(keys.release(teamId, product.id, release.id), 'attribute_exists(pk) AND attribute_not_exists(#lockedBy)', { '#lockedBy': 'lockedBy' }),
      tx.check(keys.product(teamId, product.id), 'attribute_exists(pk) AND attribute_not_exists(#deletingAt)', { '#deletingAt': 'deletingAt' }),
      tx.create(sbomItem(sbom, { actor, requestedAt: sbom.createdAt, recoveries: 0 })),
      pointerPut(teamId, id, { entityType: 'sbom', target: sbomKey, productId: product.id, releaseId: release.id }),
      auditPut(teamId, actor, {
        action: 'upload', entityType: 'sbom', entityId: id, entityName: fileName ?? `${product.name} ${release.version} SBOM`,
        changes: { releaseId: release.id, format: sbom.format, encoding: sbom.encoding, specVersion: sbom.specVersion, componentCount: sbom.componentCount, skipped: sbom.skipped.map((s) => ({ reason: s.reason, count: s.count })), fileHash: sbom.fileHash, fileSize: sbom.fileSize },
      }),
      sbomStore.stagingDone(teamId, id),
      ...alsoCommit(id),
    ]);
  } catch (error) {
    // Only a cancelled transaction surely left nothing referencing the files; after any other
    // failure (a timeout may hide a commit) the staging sweep decides, after checking the SBOM item.
    if (error instanceof TransactionFailedError) {
      const deleted = await Promise.allSettled([sbom.objectKey, sbom.inventoryKey].map((key) => s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))));
      // Whatever is left behind here (a failed delete, the record itself) the staging sweep removes.
      if (deleted.every((outcome) => outcome.status === 'fulfilled')) await sbomStore.unstage(teamId, id).catch((cause: unknown) => logger.warn('staging record left for the sweep', { sbomId: id, error: String(cause) }));
      if (error.failedAt(0)) throw await releaseLockedErrorFor(teamId, release.id);
      if (error.failedAt(1)) throw new NotFoundError('Release');
      if (error.failedAt(6)) throw new ConflictError('Upload already completed', 'upload_completed');
    }
    throw error;
  }
  await dispatchScan({ teamId, sbomId: id, actor });
  return sbom;
}

/**
 * Deletes the files of uploads that never got their SBOM item (a crash or a
 * failure between the S3 writes and the transaction), staged before
 * `dueBefore`. Checks the SBOM item first: a staging record that outlived its
 * transaction must not cost a live SBOM its files.
 */
async function sweepStaging(dueBefore: string): Promise<{ removed: number; objects: number }> {
  const bucket = config().sbomBucket;
  const result = { removed: 0, objects: 0 };
  for (const staging of await sbomStore.staleStaging(dueBefore)) {
    if (!(await sbomStore.exists(staging.sbomKey))) {
      await Promise.all(staging.objectKeys.map((key) => s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))));
      result.objects += staging.objectKeys.length;
    }
    await sbomStore.unstage(staging.teamId, staging.sbomId);
    result.removed += 1;
  }
  return result;
}

export const Sboms = {
  async upload(teamId: string, actor: Actor, input: { releaseId: string; content: string; fileName?: string | undefined }): Promise<Sbom> {
    const resolved = await Releases.resolve(teamId, input.releaseId);
    return ingest(teamId, actor, resolved, Buffer.from(input.content, 'utf8'), input.fileName ?? null);
  },

  /** Step 1 of the pre-signed flow: a short-lived PUT URL for the raw file (BRIEF decision 8). */
  async createUpload(teamId: string, actor: Actor, input: { releaseId: string; fileName?: string | undefined }) {
    const { release, product } = await Releases.resolve(teamId, input.releaseId);
    if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
    const uploadId = randomUUID();
    const objectKey = keys.sbomUploadObject(teamId, uploadId);
    const expiresAt = new Date(Date.now() + UPLOAD_URL_TTL_SECONDS * 1000);
    const discardAt = new Date(expiresAt.getTime() + UPLOAD_SESSION_GRACE_SECONDS * 1000);
    await transactWrite([
      tx.create({
        ...keys.sbomUpload(teamId, uploadId), ...keys.sbomUploadIndex(discardAt.toISOString(), uploadId), entity: 'SbomUpload', id: uploadId, teamId, productId: product.id, releaseId: release.id,
        fileName: input.fileName ?? null, objectKey, expiresAt: expiresAt.toISOString(), expiresAtEpoch: Math.floor(discardAt.getTime() / 1000),
      }),
      auditPut(teamId, actor, {
        action: 'create', entityType: 'sbom_upload', entityId: uploadId, entityName: input.fileName ?? `${product.name} ${release.version} SBOM upload`,
        changes: { releaseId: release.id, fileName: input.fileName ?? null, expiresAt: expiresAt.toISOString() },
      }),
    ]);
    const uploadUrl = await getSignedUrl(s3(), new PutObjectCommand({ Bucket: config().sbomBucket, Key: objectKey }), { expiresIn: UPLOAD_URL_TTL_SECONDS });
    return { uploadId, uploadUrl, method: 'PUT' as const, expiresAt: expiresAt.toISOString(), maxBytes: MAX_SBOM_BYTES, completePath: `/api/sboms/uploads/${uploadId}/complete` };
  },

  /** Step 3: the uploaded object goes through the same checks and storage as a direct upload. */
  async completeUpload(teamId: string, actor: Actor, uploadId: string): Promise<Sbom> {
    const upload = await getItem(keys.sbomUpload(teamId, uploadId));
    if (!upload) throw new NotFoundError('Upload');
    if (typeof upload.completedSbomId === 'string') throw new ConflictError(`Upload already completed as SBOM ${upload.completedSbomId}`, 'upload_completed');
    const bucket = config().sbomBucket;
    const objectKey = String(upload.objectKey);
    let size: number;
    try {
      size = (await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }))).ContentLength ?? 0;
    } catch {
      throw new ConflictError('Nothing was uploaded to the pre-signed URL yet', 'upload_missing');
    }
    if (size > MAX_SBOM_BYTES) {
      await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey }));
      throw new PayloadTooLargeError(`SBOM file exceeds ${MAX_SBOM_BYTES} bytes`);
    }
    const object = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    const resolved = await Releases.resolve(teamId, String(upload.releaseId));
    // The session is marked completed in the SBOM's own transaction: a crash after it cannot turn a
    // retried complete into a second SBOM, and two concurrent completes cannot both commit.
    const sbom = await ingest(teamId, actor, resolved, bytes, (upload.fileName as string | null) ?? null, (sbomId) => [
      tx.update(keys.sbomUpload(teamId, uploadId), 'SET #completed = :sbomId', { '#completed': 'completedSbomId' }, { ':sbomId': sbomId }, 'attribute_exists(pk) AND attribute_not_exists(#completed)'),
    ]);
    // The staged file is no longer needed; if this delete is lost, the session sweep (or the bucket's lifecycle rule) removes it.
    await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey }));
    return sbom;
  },

  /**
   * Recovery sweep (local start; see docs/architecture.md "Recovery after a
   * crash"): files of uploads that never got their SBOM item, and the staged
   * files and records of pre-signed upload sessions past their discard time.
   */
  async sweep(dueBefore: string): Promise<{ staging: { removed: number; objects: number }; uploadSessions: number }> {
    const staging = await sweepStaging(dueBefore);
    const bucket = config().sbomBucket;
    const sessions = await sbomStore.expiredUploadSessions(dueBefore);
    for (const session of sessions) {
      await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: session.objectKey }));
      await sbomStore.discardUploadSession(session.teamId, session.uploadId);
    }
    return { staging, uploadSessions: sessions.length };
  },

  async resolve(teamId: string, sbomId: string): Promise<ResolvedSbom> {
    const resolved = await sbomStore.resolve(teamId, sbomId);
    if (!resolved) throw new NotFoundError('SBOM');
    return resolved;
  },

  async download(teamId: string, sbomId: string): Promise<{ sbom: Sbom; bytes: Buffer }> {
    const { sbom } = await Sboms.resolve(teamId, sbomId);
    return { sbom, bytes: await sbomStore.readOriginal(sbom) };
  },
};
