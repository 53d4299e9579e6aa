/**
 * Storing an uploaded SBOM, whichever way it came (direct or pre-signed): the same bytes again
 * answer the SBOM already stored; new bytes are parsed, staged, written with their inventory and
 * committed as the SBOM item in one transaction, and the SBOM's scan is dispatched. The original
 * bytes are stored unchanged; `file_hash` is their SHA-256.
 */
import { createHash, randomUUID } from 'node:crypto';
import { deleteObject, putObject } from '../aws-s3';
import { config } from '../config';
import { keys } from '../data/keys';
import { transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut } from '../audit/audit-log';
import { logger } from '../logger';
import { ConflictError, NotFoundError, PayloadTooLargeError } from '../errors';
import { releaseLockedError, releaseLockedErrorFor } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { MAX_SBOM_BYTES } from './sbom-limits';
import { sbomMediaType } from '../sbom/media-type';
import type { ResolvedRelease } from '../releases/release-store';
import { dispatchScan } from '../scans/scan-dispatch';
import { contentClaimCreate, sbomItem, sbomStore, type Sbom } from './sbom-store';
import { sbomRecovery } from './sbom-recovery';

/** An upload's answer: the SBOM, and whether this request created it (201) or found the same bytes already stored (200). */
export interface UploadOutcome {
  sbom: Sbom;
  created: boolean;
}

export async function ingest(
  teamId: string,
  actor: Actor,
  resolved: ResolvedRelease,
  bytes: Buffer,
  fileName: string | null,
  alsoCommit: (sbomId: string) => TransactItem[] = () => [],
): Promise<UploadOutcome> {
  if (bytes.length > MAX_SBOM_BYTES) throw new PayloadTooLargeError(`SBOM content exceeds ${MAX_SBOM_BYTES} bytes`);
  const { release, product } = resolved;
  const fileHash = createHash('sha256').update(bytes).digest('hex');
  // The same bytes again (a CI retry) get the SBOM already stored, unscanned again. Before the
  // lock check: answering with what exists writes nothing, so a retry after the release was locked still succeeds.
  const existing = await sbomStore.findByContent(teamId, product.id, release.id, fileHash);
  if (existing) return { sbom: existing, created: false };
  // Spec rule 2: the release chain (release, SBOM, dispositions) is locked while a VEX document holds it.
  if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
  // The parsers load with the first upload: list, get, download and delete never need them (docs/architecture/cold-starts.md "Bundles").
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
    ...(parsed.bomIdentity ? { bomIdentity: parsed.bomIdentity } : {}),
    componentCount: parsed.components.length,
    skipped: parsed.skipped,
    fileHash,
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
  await sbomRecovery.stage({
    teamId,
    sbomId: id,
    sbomKey,
    objectKeys: [sbom.objectKey, sbom.inventoryKey],
    stagedAt: sbom.createdAt,
  });
  try {
    await putObject({
      Bucket: bucket,
      Key: sbom.objectKey,
      Body: bytes,
      ContentType: sbomMediaType(sbom),
      ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'),
      Metadata: { sha256: sbom.fileHash },
    });
    await sbomStore.putInventory(sbom.inventoryKey, parsed.components);
    // The SBOM enters the pending-scan index with its creation: its scan is owed from the moment the client gets 201.
    await transactWrite([
      tx.check(
        keys.release(teamId, product.id, release.id),
        'attribute_exists(pk) AND attribute_not_exists(#lockedBy)',
        { '#lockedBy': 'lockedBy' },
      ),
      tx.check(keys.product(teamId, product.id), 'attribute_exists(pk) AND attribute_not_exists(#deletingAt)', {
        '#deletingAt': 'deletingAt',
      }),
      tx.create(sbomItem(sbom, { actor, requestedAt: sbom.createdAt, recoveries: 0 })),
      pointerPut(teamId, id, { entityType: 'sbom', target: sbomKey, productId: product.id, releaseId: release.id }),
      auditPut(teamId, actor, {
        action: 'upload',
        entityType: 'sbom',
        entityId: id,
        entityName: fileName ?? `${product.name} ${release.version} SBOM`,
        changes: {
          releaseId: release.id,
          format: sbom.format,
          encoding: sbom.encoding,
          specVersion: sbom.specVersion,
          componentCount: sbom.componentCount,
          skipped: sbom.skipped.map((s) => ({ reason: s.reason, count: s.count })),
          fileHash: sbom.fileHash,
          fileSize: sbom.fileSize,
        },
      }),
      sbomRecovery.stagingDone(teamId, id),
      contentClaimCreate(sbom),
      ...alsoCommit(id),
    ]);
  } catch (error) {
    // Only a cancelled transaction surely left nothing referencing the files; after any other
    // failure (a timeout may hide a commit) the staging sweep decides, after checking the SBOM item.
    if (error instanceof TransactionFailedError) {
      const deleted = await Promise.allSettled(
        [sbom.objectKey, sbom.inventoryKey].map((key) => deleteObject({ Bucket: bucket, Key: key })),
      );
      // Whatever is left behind here (a failed delete, the record itself) the staging sweep removes.
      if (deleted.every((outcome) => outcome.status === 'fulfilled'))
        await sbomRecovery
          .unstage(teamId, id)
          .catch((cause: unknown) =>
            logger.warn('staging record left for the sweep', { sbomId: id, error: String(cause) }),
          );
      if (error.failedAt(0)) throw await releaseLockedErrorFor(teamId, release.id);
      if (error.failedAt(1)) throw new NotFoundError('Release');
      // An identical upload committed first (two CI retries racing): answer with its SBOM.
      if (error.failedAt(6)) {
        const winner = await sbomStore.findByContent(teamId, product.id, release.id, fileHash);
        if (winner) return { sbom: winner, created: false };
        throw new ConflictError(
          'An identical upload to this release is being deleted; retry',
          'concurrent_modification',
        );
      }
      if (error.failedAt(7)) throw new ConflictError('Upload already completed', 'upload_completed');
    }
    throw error;
  }
  await dispatchScan({ teamId, sbomId: id, actor });
  return { sbom, created: true };
}
