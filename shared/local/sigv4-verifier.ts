/**
 * Server-side check of AWS Signature Version 4 for the embedded engines: they accept a
 * request only when it is signed with the data directory's own key pair
 * (engine-credentials.ts), as the real services accept only known keys. The signature
 * is recomputed with @smithy/signature-v4's canonicalisation and key derivation (the
 * SDK's own signer), from the headers the client says it signed, and compared in
 * constant time. Both forms are checked: the Authorization header and a pre-signed URL
 * (X-Amz-* query parameters, with its expiry).
 *
 * Not checked: the chunk signatures of a `STREAMING-AWS4-HMAC-SHA256-PAYLOAD` body and,
 * for S3, that a body matches its signed `x-amz-content-sha256` (the headers, hence
 * the request's identity, are still verified).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { NodeSha256 } from '../service/aws-sha256';
import type { IncomingHttpHeaders } from 'node:http';
import { ALGORITHM_IDENTIFIER, SignatureV4, UNSIGNED_PAYLOAD, getCanonicalHeaders } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';

export interface EngineCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export type SignatureProblem =
  /** Neither an Authorization header nor X-Amz-Algorithm in the query. */
  | 'missing'
  /** Signed, but not in a form this check understands (SigV2, malformed parameters). */
  | 'malformed'
  /** Another access key id than the data directory's. */
  | 'unknown-key'
  | 'mismatch'
  /** Header signature dated more than 15 minutes away from now. */
  | 'skewed'
  /** Pre-signed URL past its X-Amz-Expires. */
  | 'expired';

export type Verdict = { ok: true } | { ok: false; problem: SignatureProblem; message: string; accessKeyId?: string };

export interface SignedRequest {
  method: string;
  /** The request target as received (`/path?query`), still percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The whole body when the engine has it (DynamoDB); its hash is checked against the signature. */
  body?: Buffer;
}

/** AWS allows 15 minutes between the signing time and the service's clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;
const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** Exposes the signer's canonical request and string to sign to a verifier. */
class Recomputer extends SignatureV4 {
  async signatureOf(
    request: HttpRequest,
    signedHeaders: Set<string>,
    payloadHash: string,
    longDate: string,
    scope: string,
  ) {
    const [shortDate, region, service] = scope.split('/');
    const canonicalHeaders = getCanonicalHeaders(request, undefined, signedHeaders);
    const canonicalRequest = this.createCanonicalRequest(request, canonicalHeaders, payloadHash);
    const stringToSign = await this.createStringToSign(longDate, scope, canonicalRequest, ALGORITHM_IDENTIFIER);
    return this.sign(stringToSign, {
      signingDate: new Date(`${shortDate?.slice(0, 4)}-${shortDate?.slice(4, 6)}-${shortDate?.slice(6, 8)}T00:00:00Z`),
      ...(region !== undefined ? { signingRegion: region } : {}),
      ...(service !== undefined ? { signingService: service } : {}),
    });
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Raw query parameters, decoded (the signer re-encodes them canonically). */
function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = decodeURIComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : decodeURIComponent(pair.slice(equals + 1));
    const existing = query[key];
    query[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

/** 20240101T120000Z -> Date, or undefined. */
function parseAmzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return undefined;
  const date = new Date(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function sameSignature(given: string, expected: string): boolean {
  const left = Buffer.from(given, 'utf8');
  const right = Buffer.from(expected, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

const reject = (problem: SignatureProblem, message: string, accessKeyId?: string): Verdict => ({
  ok: false,
  problem,
  message,
  ...(accessKeyId !== undefined ? { accessKeyId } : {}),
});

/** The parts both forms carry: credential scope, signed header list, signature, date. */
interface Presented {
  accessKeyId: string;
  scope: string;
  signedHeaders: string[];
  signature: string;
  longDate: string;
}

function parseCredential(credential: string | undefined): { accessKeyId: string; scope: string } | undefined {
  const parts = (credential ?? '').split('/');
  if (parts.length !== 5 || parts.some((part) => part === '') || parts[4] !== 'aws4_request') return undefined;
  return { accessKeyId: parts[0] as string, scope: parts.slice(1).join('/') };
}

export async function verifySigV4(
  request: SignedRequest,
  credentials: EngineCredentials,
  now: Date = new Date(),
): Promise<Verdict> {
  const questionMark = request.url.indexOf('?');
  const path = questionMark < 0 ? request.url : request.url.slice(0, questionMark);
  let query: Record<string, string | string[]>;
  try {
    query = parseQuery(questionMark < 0 ? '' : request.url.slice(questionMark + 1));
  } catch {
    return reject('malformed', 'The request query string is not valid percent-encoding.');
  }
  const authorization = header(request.headers, 'authorization');
  const presigned = typeof query['X-Amz-Algorithm'] === 'string';
  if (authorization === undefined && !presigned) return reject('missing', 'Request is missing Authentication Token');
  if (authorization !== undefined && presigned)
    return reject(
      'malformed',
      "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header.",
    );

  let presented: Presented;
  let payloadHash: string;
  if (authorization !== undefined) {
    const scheme = 'AWS4-HMAC-SHA256 ';
    const trimmed = authorization.trim();
    const parameters = trimmed.startsWith(scheme) ? trimmed.slice(scheme.length).trim() : '';
    if (!parameters) return reject('malformed', 'Only AWS4-HMAC-SHA256 (Signature Version 4) is supported.');
    const fields = Object.fromEntries(
      parameters.split(',').map((field) => {
        const equals = field.indexOf('=');
        return [field.slice(0, equals).trim(), field.slice(equals + 1).trim()];
      }),
    ) as Record<string, string | undefined>;
    const credential = parseCredential(fields.Credential);
    const longDate = header(request.headers, 'x-amz-date');
    if (!credential || !fields.SignedHeaders || !fields.Signature || !longDate)
      return reject(
        'malformed',
        'The Authorization header needs Credential, SignedHeaders, Signature and an X-Amz-Date header.',
      );
    presented = {
      ...credential,
      signedHeaders: fields.SignedHeaders.split(';'),
      signature: fields.Signature,
      longDate,
    };
    const declared = header(request.headers, 'x-amz-content-sha256');
    const bodyHash = request.body ? createHash('sha256').update(request.body).digest('hex') : undefined;
    // A declared hash must be the body's (when the engine has the body); otherwise the body is hashed.
    if (declared !== undefined && bodyHash !== undefined && /^[0-9a-f]{64}$/.test(declared) && declared !== bodyHash)
      return reject(
        'mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
        credential.accessKeyId,
      );
    payloadHash = declared ?? bodyHash ?? EMPTY_SHA256;
  } else {
    const credential = parseCredential(query['X-Amz-Credential'] as string | undefined);
    const {
      'X-Amz-SignedHeaders': signedHeaders,
      'X-Amz-Signature': signature,
      'X-Amz-Date': longDate,
      'X-Amz-Expires': expires,
    } = query;
    if (
      query['X-Amz-Algorithm'] !== ALGORITHM_IDENTIFIER ||
      !credential ||
      typeof signedHeaders !== 'string' ||
      typeof signature !== 'string' ||
      typeof longDate !== 'string' ||
      typeof expires !== 'string'
    )
      return reject('malformed', 'The pre-signed URL lacks or repeats an X-Amz-* parameter.');
    const signedAt = parseAmzDate(longDate);
    const seconds = Number(expires);
    if (!signedAt || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGNED_SECONDS)
      return reject('malformed', 'X-Amz-Date or X-Amz-Expires of the pre-signed URL is not valid.');
    if (now.getTime() > signedAt.getTime() + seconds * 1000)
      return reject('expired', 'Request has expired', credential.accessKeyId);
    if (signedAt.getTime() - now.getTime() > MAX_SKEW_MS)
      return reject('skewed', 'Request is not valid yet', credential.accessKeyId);
    presented = { ...credential, signedHeaders: signedHeaders.split(';'), signature, longDate };
    payloadHash = typeof query['X-Amz-Content-Sha256'] === 'string' ? query['X-Amz-Content-Sha256'] : UNSIGNED_PAYLOAD;
  }

  if (presented.accessKeyId !== credentials.accessKeyId)
    return reject('unknown-key', 'The access key id is not the one of this data directory.', presented.accessKeyId);
  const signedAt = parseAmzDate(presented.longDate);
  if (!signedAt || !presented.scope.startsWith(`${presented.longDate.slice(0, 8)}/`))
    return reject('malformed', 'The date of the credential scope does not match X-Amz-Date.', presented.accessKeyId);
  if (authorization !== undefined && Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS)
    return reject(
      'skewed',
      `Signature expired: ${presented.longDate} is now more than 15 minutes away from the server time.`,
      presented.accessKeyId,
    );

  const headers: Record<string, string> = {};
  for (const name of presented.signedHeaders) {
    const value = header(request.headers, name);
    if (value === undefined)
      return reject('mismatch', `Signed header ${name} is missing from the request.`, presented.accessKeyId);
    headers[name] = value;
  }
  const [, region, service] = presented.scope.split('/');
  const recomputer = new Recomputer({
    credentials,
    region: region ?? '',
    service: service ?? '',
    sha256: NodeSha256,
    // S3 signs the path as sent; every other service normalises and encodes it again.
    uriEscapePath: service !== 's3',
  });
  const unsignedQuery = { ...query };
  delete unsignedQuery['X-Amz-Signature'];
  const expected = await recomputer.signatureOf(
    { method: request.method.toUpperCase(), protocol: 'http:', hostname: '', path, query: unsignedQuery, headers },
    new Set(presented.signedHeaders),
    payloadHash,
    presented.longDate,
    presented.scope,
  );
  if (!sameSignature(presented.signature, expected))
    return reject(
      'mismatch',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      presented.accessKeyId,
    );
  return { ok: true };
}
