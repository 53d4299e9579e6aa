/**
 * A request body as a parse step sees it once the HTTP layer has decoded it (http/request.ts): its media
 * type and its JSON validated against a zod schema, failures as the 400/422 errors the API answers.
 * Plain functions over headers and bytes, so a domain module's parse step (sboms/upload-input.ts) needs
 * no HTTP code.
 */
import type * as z from 'zod';
import { BadRequestError, ValidationError, type ErrorDetail } from './errors';
import { requestErrorMap } from './schemas/common';

/** The body's media type: the Content-Type without parameters, lower case; '' when none was sent. */
export function mediaTypeOf(headers: Record<string, string>): string {
  return headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
}

export function toErrorDetails(issues: z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message, code: issue.code }));
}

/** The headline names the first problems, so a client that shows only `message` still says what to fix. */
export function validationFailed(what: string, issues: z.core.$ZodIssue[]): ValidationError {
  const details = toErrorDetails(issues);
  const shown = details
    .slice(0, 3)
    .map((detail) =>
      detail.path === '' || detail.message.startsWith(detail.path)
        ? detail.message
        : `${detail.path}: ${detail.message}`,
    );
  const more = details.length > shown.length ? ` (and ${details.length - shown.length} more)` : '';
  return new ValidationError(`${what}: ${shown.join('; ')}${more}`, details);
}

export function parseJsonBody(bytes: Buffer | undefined, schema: z.ZodType): unknown {
  // No body reads as an empty object: the answer names the missing fields ("comment is required"),
  // the same answer `{}` gets, instead of only saying that a body is required.
  let value: unknown = {};
  if (bytes !== undefined) {
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new BadRequestError('Request body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value, { error: requestErrorMap });
  if (!parsed.success) throw validationFailed('Request body failed validation', parsed.error.issues);
  return parsed.data;
}
