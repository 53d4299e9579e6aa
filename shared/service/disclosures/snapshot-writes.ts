/**
 * The bytes of a publication, written once: the snapshot (S3 conditional create; Object Lock on
 * AWS) and the public-key files beside it, all stored before the transaction that makes the
 * disclosure visible, so a retried publish finds them and carries on.
 */
import { getObject, putObject, s3ErrorStatus } from '../aws-s3';
import { config } from '../config';
import { ConflictError } from '../errors';
import type { VexFormat } from '../schemas/vex';
import {
  checksumFile,
  DISCLOSURE_FILES,
  disclosureFileObjectKey,
  rawFileName,
  type DisclosureFileKind,
} from './disclosure-files';
import { inTotoStatementOf, IN_TOTO_PAYLOAD_TYPE } from './attestation';
import { PublisherKeys } from './publisher-keys';

/**
 * Writes the snapshot bytes once. A retry (or a racing publish) of the same
 * document version finds identical bytes already stored and carries on; any
 * other content under that key is refused.
 */
export async function writeSnapshotOnce(objectKey: string, bytes: Buffer, contentType: string): Promise<void> {
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
 * The public-key side of a publication: `.asc`, `.sha256`,
 * `.sha512`, and for OpenVEX the DSSE attestation, all stored beside the
 * snapshot before the transaction that makes the disclosure visible.
 */
export async function writeSignedFiles(
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
