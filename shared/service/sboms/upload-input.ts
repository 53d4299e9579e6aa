/**
 * The parse step of POST /api/sboms/upload, which takes two bodies (docs/sbom-formats.md "Raw bodies"):
 * - the spec's JSON envelope `{ releaseId, content, fileName? }` (no query parameters), unchanged;
 * - the SBOM file itself, selected by `?releaseId=` (and `?fileName=`), stored byte for byte.
 * The query decides, not the body: telling the two apart needs no parse of a 10 MB document and
 * cannot guess wrong (an envelope is never an SBOM, and a raw body never names its release).
 */
import { UnsupportedMediaTypeError, ValidationError } from '../errors';
import { mediaTypeOf, parseJsonBody } from '../http/request';
import { RAW_SBOM_MEDIA_TYPES } from '../sbom/media-type';
import { uploadSbomBody } from '../schemas/sboms';

export interface SbomUploadInput {
  releaseId: string;
  /** The file as it will be stored: the raw body (after gzip decoding) or the envelope's `content` in UTF-8. */
  bytes: Buffer;
  fileName: string | null;
}

/** Media types that only ever mean "the SBOM file itself": sent without `?releaseId=` they are a mistake worth naming. */
const FILE_ONLY_MEDIA_TYPES = new Set<string>(RAW_SBOM_MEDIA_TYPES.filter((type) => type !== 'application/json'));
const ACCEPTED = RAW_SBOM_MEDIA_TYPES.join(', ');

export function parseSbomUpload(
  query: { releaseId?: string | undefined; fileName?: string | undefined },
  headers: Record<string, string>,
  body: Buffer | undefined,
): SbomUploadInput {
  const mediaType = mediaTypeOf(headers);
  if (query.releaseId !== undefined) {
    // No Content-Type is taken as "detect from the content" (the spec's upload rule 1), as a bare fetch sends.
    if (mediaType !== '' && !(RAW_SBOM_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
      throw new UnsupportedMediaTypeError(
        `Content-Type ${mediaType} is not an SBOM file type; send one of ${ACCEPTED} (gzip with Content-Encoding: gzip)`,
      );
    }
    if (body === undefined || body.length === 0) {
      throw new ValidationError('The SBOM file is required as the request body', [
        { path: '', message: 'empty body', code: 'required' },
      ]);
    }
    return { releaseId: query.releaseId, bytes: body, fileName: query.fileName ?? null };
  }
  if (FILE_ONLY_MEDIA_TYPES.has(mediaType) || looksLikeSbomDocument(body)) {
    throw new ValidationError(
      'A raw SBOM body needs its release in the query: POST /api/sboms/upload?releaseId=<uuid>[&fileName=<name>]',
      [
        {
          path: 'releaseId',
          message: 'required as a query parameter when the body is the SBOM file itself',
          code: 'required',
        },
      ],
    );
  }
  if (query.fileName !== undefined) {
    throw new ValidationError(
      'fileName goes in the JSON envelope; the fileName query parameter is for raw SBOM bodies (with ?releaseId=)',
      [{ path: 'fileName', message: 'only with a raw SBOM body (?releaseId=)', code: 'unrecognized_keys' }],
    );
  }
  const envelope = parseJsonBody(body, uploadSbomBody) as {
    releaseId: string;
    content: string;
    fileName?: string | undefined;
  };
  return {
    releaseId: envelope.releaseId,
    bytes: Buffer.from(envelope.content, 'utf8'),
    fileName: envelope.fileName ?? null,
  };
}

/**
 * A CycloneDX or SPDX JSON document sent as if it were the envelope (`curl --data-binary @bom.json`
 * without `?releaseId=`): its top-level `bomFormat` / `spdxVersion` say so. Only looked at when the
 * envelope would be read anyway; a body that does not parse is left to the envelope's 400.
 */
function looksLikeSbomDocument(body: Buffer | undefined): boolean {
  if (body === undefined) return false;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return (
      typeof value === 'object' &&
      value !== null &&
      !('content' in value) &&
      ('bomFormat' in value || 'spdxVersion' in value)
    );
  } catch {
    return false;
  }
}
