/**
 * The request a client sends to upload an SBOM file as it is on disk (docs/sbom-formats.md "Raw bodies"):
 * `POST /api/sboms/upload?releaseId=…&fileName=…` with the file gzip-compressed on the wire. The service
 * stores the decompressed bytes, so `file_hash` is the SHA-256 of the file on disk.
 *
 *   const { query, headers, body } = rawUploadRequest({ path: 'bom.json' }, releaseId);
 *   await fetch(`${url}/api/sboms/upload?${new URLSearchParams(query)}`, { method: 'POST', headers: { ...headers, Authorization }, body });
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * Compressed bytes a direct upload carries on AWS: a synchronous Lambda invocation takes at most 6 MB
 * and API Gateway hands the body over base64-encoded (4/3 larger), beside headers and context.
 * A larger file goes through the pre-signed flow (POST /api/sboms/uploads).
 */
export const DIRECT_UPLOAD_MAX_WIRE_BYTES = 4 * 1024 * 1024;

export type UploadFile = { path: string; fileName?: string } | { bytes: Uint8Array; fileName: string };

export interface RawUploadRequest {
  query: { releaseId: string; fileName: string };
  headers: { 'Content-Type': string; 'Content-Encoding': 'gzip' };
  body: Buffer;
  /** The file's own size (what the service's 10 MB limit counts). */
  fileBytes: number;
  /** False when the compressed body is too large for a direct upload on AWS: use the pre-signed flow. */
  fitsDirectUpload: boolean;
}

export function rawUploadRequest(file: UploadFile, releaseId: string): RawUploadRequest {
  const bytes = 'path' in file ? readFileSync(file.path) : file.bytes;
  const fileName = file.fileName ?? ('path' in file ? basename(file.path) : '');
  const body = gzipSync(bytes);
  return {
    query: { releaseId, fileName },
    headers: { 'Content-Type': sbomContentType(bytes), 'Content-Encoding': 'gzip' },
    body,
    fileBytes: bytes.length,
    fitsDirectUpload: body.length <= DIRECT_UPLOAD_MAX_WIRE_BYTES,
  };
}

/**
 * The media type of an SBOM file by its first bytes (the service detects the format from the content
 * too; the type only has to be one it accepts): CycloneDX or SPDX JSON, CycloneDX XML, SPDX tag-value.
 */
export function sbomContentType(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 64 * 1024))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head.startsWith('<')) return 'application/vnd.cyclonedx+xml';
  if (head.startsWith('{')) {
    if (head.includes('"bomFormat"')) return 'application/vnd.cyclonedx+json';
    if (head.includes('"spdxVersion"')) return 'application/spdx+json';
    return 'application/json';
  }
  return 'text/spdx';
}
