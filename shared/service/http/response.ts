/** Maps operation results and errors to API Gateway proxy responses, one shape everywhere. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError } from '../errors';
import { logger } from '../logger';

export interface JsonResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RawResult {
  status: number;
  raw: string | Buffer;
  contentType: string;
  headers?: Record<string, string>;
}

export type OperationResult = JsonResult | RawResult;

const BASE_HEADERS = { 'X-Content-Type-Options': 'nosniff' };

export function toProxyResult(result: OperationResult, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...(result.headers ?? {}),
  };
  if ('raw' in result) {
    headers['Content-Type'] = result.contentType;
    if (Buffer.isBuffer(result.raw)) {
      return { statusCode: result.status, headers, body: result.raw.toString('base64'), isBase64Encoded: true };
    }
    return { statusCode: result.status, headers, body: result.raw };
  }
  if (result.body === undefined) return { statusCode: result.status, headers, body: '' };
  headers['Content-Type'] = 'application/json; charset=utf-8';
  return { statusCode: result.status, headers, body: JSON.stringify(result.body) };
}

/** The one error mapper: messages are exposed only below 500; each failure is logged once. */
export function errorToProxyResult(error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof AppError && error.status < 500) {
    logger.info('request rejected', { status: error.status, code: error.code });
    return toProxyResult(
      {
        status: error.status,
        body: {
          error: {
            code: error.code,
            message: error.message,
            ...(error.details ? { details: error.details } : {}),
            requestId,
          },
        },
      },
      requestId,
    );
  }
  if (error instanceof AppError && (error.status === 501 || error.status === 503)) {
    if (error.status === 503)
      logger.warn('service unavailable', { code: error.code, cause: (error.cause as Error | undefined)?.message });
    return toProxyResult(
      { status: error.status, body: { error: { code: error.code, message: error.message, requestId } } },
      requestId,
    );
  }
  logger.error('request failed', error as Error);
  return toProxyResult(
    { status: 500, body: { error: { code: 'internal_error', message: 'Internal error', requestId } } },
    requestId,
  );
}
