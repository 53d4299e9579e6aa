/**
 * Turns an API Gateway proxy event into validated inputs. Bodies may arrive
 * base64-encoded (the REST API treats every media type as binary so gzip
 * bodies reach the Lambda intact) and gzip-compressed.
 */
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod';
import { validationFailed } from '../body-parsing';
import { BadRequestError, NotFoundError, PayloadTooLargeError } from '../errors';
import { requestErrorMap } from '../schemas/common';

/** Default ceiling for JSON bodies; the SBOM upload route raises it (see routes' maxBodyBytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function lowerCaseHeaders(event: APIGatewayProxyEvent): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  return headers;
}

export function decodeBody(
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
  maxBytes: number,
): Buffer | undefined {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  let bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding === 'gzip') {
    try {
      // Inflation stops at the route's ceiling: a gzip bomb (1 KB → 1 GB) costs at most that much memory, never its full size.
      bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new PayloadTooLargeError(`Decompressed request body exceeds ${maxBytes} bytes`);
      }
      throw new BadRequestError(`Request body is not valid gzip data (Content-Encoding: gzip): ${gzipProblem(error)}`);
    }
  } else if (encoding && encoding !== 'identity') {
    throw new BadRequestError(`Unsupported Content-Encoding "${encoding}" (use gzip or none)`);
  }
  if (bytes.length > maxBytes) throw new PayloadTooLargeError(`Request body exceeds ${maxBytes} bytes`);
  return bytes;
}

/** zlib's own words for what is wrong (`incorrect header check`, `unexpected end of file`), without a stack. */
function gzipProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  return /^[\w ,.'-]{1,80}$/.test(message) ? message : 'unreadable';
}

/**
 * Query parameters the route's schema does not name are 422 (`unrecognized_keys`), as unknown body
 * fields are: a misspelt filter (`?severty=critical`) must not silently return the unfiltered list.
 * A route without a query schema accepts no parameters at all.
 */
export function strictQuerySchema(schema: z.ZodObject | undefined): z.ZodObject {
  return schema ? schema.strict() : z.strictObject({});
}

export function parseQuery(event: APIGatewayProxyEvent, schema: z.ZodObject): unknown {
  const parsed = schema.safeParse(event.queryStringParameters ?? {}, { error: requestErrorMap });
  if (!parsed.success) {
    const accepted = Object.keys(schema.shape);
    const unknown =
      accepted.length > 0
        ? `unknown query parameter (accepted: ${accepted.join(', ')})`
        : 'unknown query parameter (this route takes none)';
    // One issue per unknown name, with the name as its path, so `details` points at each like at a bad value.
    const issues = parsed.error.issues.flatMap((issue): z.core.$ZodIssue[] =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((name) => ({ ...issue, path: [name], message: unknown }))
        : [issue],
    );
    throw validationFailed('Query parameters failed validation', issues);
  }
  return parsed.data;
}

/** A path id that cannot exist is reported exactly like one that does not: 404. */
export function parsePathParameters(event: APIGatewayProxyEvent, schema: z.ZodType, entity: string): unknown {
  const parsed = schema.safeParse(event.pathParameters ?? {});
  if (!parsed.success) throw new NotFoundError(entity);
  return parsed.data;
}
