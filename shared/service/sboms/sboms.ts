/**
 * SBOM upload (envelope or raw body, gzip or not, or pre-signed), metadata, delete, the recovery
 * sweep and download. Storing an upload's bytes (unchanged; `file_hash` is their SHA-256) is
 * sbom-ingest.ts.
 */
import { randomUUID } from 'node:crypto';
import { PRESIGNED_URL_MAX_SECONDS } from '../aws-clients';
import {
  deleteObject,
  headObject,
  ObjectTooLargeError,
  presignedPutUrl,
  readObjectBytes,
  s3ErrorStatus,
} from '../aws-s3';
import { config } from '../config';
import { keys } from '../data/keys';
import { getItem, transactWrite, TransactionFailedError, tx } from '../data/table-client';
import { deleteRangeWithPointers } from '../data/id-pointers';
import { paginate } from '../data/paging';
import type { PageQuery } from '../schemas/common';
import { auditPut } from '../audit/audit-log';
import { ConflictError, NotFoundError, PayloadTooLargeError } from '../errors';
import { releaseLockedError, releaseLockedErrorFor } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { MAX_SBOM_BYTES } from './sbom-limits';
import { Releases } from '../releases/releases';
import { releaseStore } from '../releases/release-store';
import { contentClaimDelete, sbomStore, type ResolvedSbom, type Sbom } from './sbom-store';
import { sbomRecovery, type SbomStaging } from './sbom-recovery';
import { ingest, type UploadOutcome } from './sbom-ingest';
import { removeSbom } from '../watch/watch-index';
import { logger } from '../logger';

// Tenant credentials are refreshed early enough for a URL of this lifetime (shared/service/aws-clients.ts).
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
  const name = (fileName ?? fallback)
    .replace(/[\\/]/g, '_')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const ascii =
    name
      .normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '_')
      .replace(/["%;\\]/g, '_')
      .trim() || fallback;
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
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
  for (const staging of await sbomRecovery.staleStaging(dueBefore)) {
    if (!(await sbomStore.exists(staging.sbomKey))) {
      await forgetWatched(staging);
      await Promise.all(staging.objectKeys.map((key) => deleteObject({ Bucket: bucket, Key: key })));
      result.objects += staging.objectKeys.length;
      if (staging.findings) await deleteRangeWithPointers(staging.teamId, staging.findings);
    }
    await sbomRecovery.unstage(staging.teamId, staging.sbomId);
    result.removed += 1;
  }
  return result;
}

/** A deleted SBOM's package-index entries, found from its inventory before that goes. Best effort: readers skip entries of SBOMs that are gone. */
async function forgetWatched(staging: SbomStaging): Promise<void> {
  if (!staging.inventoryKey) return;
  try {
    const components = await sbomStore.readInventoryAt(staging.inventoryKey);
    await removeSbom({ teamId: staging.teamId, id: staging.sbomId }, components);
  } catch (error) {
    logger.warn('package-index entries of a deleted SBOM left behind', { sbomId: staging.sbomId, error });
  }
}

/** The files and findings of an SBOM whose item is gone: removed now, or by the sweep if this is cut off. */
async function removeLeftovers(staging: SbomStaging): Promise<void> {
  const bucket = config().sbomBucket;
  if (staging.findings) await deleteRangeWithPointers(staging.teamId, staging.findings);
  await forgetWatched(staging);
  await Promise.all(staging.objectKeys.map((key) => deleteObject({ Bucket: bucket, Key: key })));
  // Again: a scan that read the SBOM before its delete may have stored findings since the first pass (its own result write then fails).
  if (staging.findings) await deleteRangeWithPointers(staging.teamId, staging.findings);
  await sbomRecovery.unstage(staging.teamId, staging.sbomId);
}

export const Sboms = {
  /** A direct upload; `created` is false when the release already held these bytes (the answer is then 200, not 201). */
  async receive(
    teamId: string,
    actor: Actor,
    input: { releaseId: string; content: string; fileName?: string | undefined },
  ): Promise<UploadOutcome> {
    return Sboms.receiveFile(teamId, actor, {
      releaseId: input.releaseId,
      bytes: Buffer.from(input.content, 'utf8'),
      fileName: input.fileName ?? null,
    });
  },

  /** A direct upload of the file's bytes (a raw body or the envelope's content), stored as they are. */
  async receiveFile(
    teamId: string,
    actor: Actor,
    input: { releaseId: string; bytes: Buffer; fileName: string | null },
  ): Promise<UploadOutcome> {
    const resolved = await Releases.resolve(teamId, input.releaseId);
    return ingest(teamId, actor, resolved, input.bytes, input.fileName);
  },

  async upload(
    teamId: string,
    actor: Actor,
    input: { releaseId: string; content: string; fileName?: string | undefined },
  ): Promise<Sbom> {
    return (await Sboms.receive(teamId, actor, input)).sbom;
  },

  /** Step 1 of the pre-signed flow: a short-lived PUT URL for the raw file. */
  async createUpload(
    teamId: string,
    actor: Actor,
    input: { releaseId: string; fileName?: string | undefined; size: number },
  ) {
    if (input.size > MAX_SBOM_BYTES) throw new PayloadTooLargeError(`SBOM file exceeds ${MAX_SBOM_BYTES} bytes`);
    const { release, product } = await Releases.resolve(teamId, input.releaseId);
    if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
    const uploadId = randomUUID();
    const objectKey = keys.sbomUploadObject(teamId, uploadId);
    const expiresAt = new Date(Date.now() + UPLOAD_URL_TTL_SECONDS * 1000);
    const discardAt = new Date(expiresAt.getTime() + UPLOAD_SESSION_GRACE_SECONDS * 1000);
    await transactWrite([
      tx.create({
        ...keys.sbomUpload(teamId, uploadId),
        ...keys.sbomUploadIndex(discardAt.toISOString(), uploadId),
        entity: 'SbomUpload',
        id: uploadId,
        teamId,
        productId: product.id,
        releaseId: release.id,
        fileName: input.fileName ?? null,
        objectKey,
        expiresAt: expiresAt.toISOString(),
        expiresAtEpoch: Math.floor(discardAt.getTime() / 1000),
      }),
      auditPut(teamId, actor, {
        action: 'create',
        entityType: 'sbom_upload',
        entityId: uploadId,
        entityName: input.fileName ?? `${product.name} ${release.version} SBOM upload`,
        changes: { releaseId: release.id, fileName: input.fileName ?? null, expiresAt: expiresAt.toISOString() },
      }),
    ]);
    // Content-Length is a signed header: the bucket takes only a body of the declared size.
    const uploadUrl = await presignedPutUrl(
      { Bucket: config().sbomBucket, Key: objectKey, ContentLength: input.size },
      UPLOAD_URL_TTL_SECONDS,
    );
    return {
      uploadId,
      uploadUrl,
      method: 'PUT' as const,
      expiresAt: expiresAt.toISOString(),
      maxBytes: MAX_SBOM_BYTES,
      completePath: `/api/sboms/uploads/${uploadId}/complete`,
    };
  },

  /** Step 3: the uploaded object goes through the same checks and storage as a direct upload. */
  async completeUpload(teamId: string, actor: Actor, uploadId: string): Promise<UploadOutcome> {
    const upload = await getItem(keys.sbomUpload(teamId, uploadId));
    if (!upload) throw new NotFoundError('Upload');
    if (typeof upload.completedSbomId === 'string')
      throw new ConflictError(`Upload already completed as SBOM ${upload.completedSbomId}`, 'upload_completed');
    const bucket = config().sbomBucket;
    const objectKey = String(upload.objectKey);
    let checked: { size: number; etag: string | undefined };
    try {
      const head = await headObject({ Bucket: bucket, Key: objectKey });
      checked = { size: head.ContentLength ?? 0, etag: head.ETag };
    } catch {
      throw new ConflictError('Nothing was uploaded to the pre-signed URL yet', 'upload_missing');
    }
    if (checked.size > MAX_SBOM_BYTES) {
      await deleteObject({ Bucket: bucket, Key: objectKey });
      throw new PayloadTooLargeError(`SBOM file exceeds ${MAX_SBOM_BYTES} bytes`);
    }
    // The object checked above, and never more than the limit: a replacement after the check is refused.
    let bytes: Buffer;
    try {
      bytes = await readObjectBytes({ Bucket: bucket, Key: objectKey, IfMatch: checked.etag }, MAX_SBOM_BYTES);
    } catch (error) {
      if (s3ErrorStatus(error) === 412)
        throw new ConflictError(
          'The uploaded file changed while it was checked; complete the upload again',
          'upload_changed',
        );
      if (error instanceof ObjectTooLargeError)
        throw new PayloadTooLargeError(`SBOM file exceeds ${MAX_SBOM_BYTES} bytes`);
      throw error;
    }
    const resolved = await Releases.resolve(teamId, String(upload.releaseId));
    // The session is marked completed in the SBOM's own transaction: a crash after it cannot turn a
    // retried complete into a second SBOM, and two concurrent completes cannot both commit.
    const markCompleted = (sbomId: string) =>
      tx.update(
        keys.sbomUpload(teamId, uploadId),
        'SET #completed = :sbomId',
        { '#completed': 'completedSbomId' },
        { ':sbomId': sbomId },
        'attribute_exists(pk) AND attribute_not_exists(#completed)',
      );
    const outcome = await ingest(
      teamId,
      actor,
      resolved,
      bytes,
      (upload.fileName as string | null) ?? null,
      (sbomId) => [markCompleted(sbomId)],
    );
    if (!outcome.created) {
      // The same bytes were already stored: the session completes as that SBOM (a concurrent complete may have marked it first).
      await transactWrite([markCompleted(outcome.sbom.id)]).catch((error: unknown) => {
        if (!(error instanceof TransactionFailedError)) throw error;
      });
    }
    // The staged file is no longer needed; if this delete is lost, the session sweep (or the bucket's lifecycle rule) removes it.
    await deleteObject({ Bucket: bucket, Key: objectKey });
    return outcome;
  },

  /** A release's SBOMs, newest first (creation time, then id), paged like every list. */
  async listByRelease(teamId: string, releaseId: string, query: PageQuery) {
    const { release, product } = await Releases.resolve(teamId, releaseId);
    const sboms = (await sbomStore.listByRelease(teamId, product.id, release.id)).sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id),
    );
    return paginate(sboms, query.page, query.perPage);
  },

  /**
   * Deletes an SBOM: its item, id pointer, content claim and scan lease go in one transaction with the
   * audit entry and the release's lock check (409 while locked); its files and findings follow, recorded
   * in that transaction so the staging sweep finishes them if this is cut off. The release's
   * dispositions stay (docs/api.md "Deleting releases and SBOMs").
   */
  async delete(teamId: string, actor: Actor, sbomId: string): Promise<void> {
    const { sbom, release, product } = await Sboms.resolve(teamId, sbomId);
    if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
    const sbomKey = keys.sbom(teamId, product.id, release.id, sbom.id);
    const leftovers: SbomStaging = {
      teamId,
      sbomId: sbom.id,
      sbomKey,
      objectKeys: [sbom.objectKey, sbom.inventoryKey, keys.sbomFindingsObject(teamId, product.id, release.id, sbom.id)],
      stagedAt: new Date().toISOString(),
      findings: keys.findingPrefix(teamId, product.id, release.id, sbom.id),
      inventoryKey: sbom.inventoryKey,
    };
    try {
      await transactWrite([
        releaseStore.unlockedCheck(release),
        tx.delete(sbomKey, 'attribute_exists(pk)'),
        tx.delete(keys.idPointer(teamId, sbom.id)),
        contentClaimDelete(sbom),
        tx.delete(keys.scanLease(teamId, product.id, release.id, sbom.id)),
        sbomRecovery.leftoversPut(leftovers),
        auditPut(teamId, actor, {
          action: 'delete',
          entityType: 'sbom',
          entityId: sbom.id,
          entityName: sbom.fileName ?? `${product.name} ${release.version} SBOM`,
          changes: {
            releaseId: release.id,
            fileHash: sbom.fileHash,
            fileName: sbom.fileName,
            componentCount: sbom.componentCount,
            findingCount: sbom.scan.findingCount,
          },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError) {
        if (error.failedAt(0)) throw await releaseLockedErrorFor(teamId, release.id);
        if (error.failedAt(1)) throw new NotFoundError('SBOM');
      }
      throw error;
    }
    await removeLeftovers(leftovers);
  },

  /**
   * Recovery sweep (local start; see docs/architecture/background-work.md "Recovery after a
   * crash"): files of uploads that never got their SBOM item, and the staged
   * files and records of pre-signed upload sessions past their discard time.
   */
  async sweep(dueBefore: string): Promise<{ staging: { removed: number; objects: number }; uploadSessions: number }> {
    const staging = await sweepStaging(dueBefore);
    const bucket = config().sbomBucket;
    const sessions = await sbomRecovery.expiredUploadSessions(dueBefore);
    for (const session of sessions) {
      await deleteObject({ Bucket: bucket, Key: session.objectKey });
      await sbomRecovery.discardUploadSession(session.teamId, session.uploadId);
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
