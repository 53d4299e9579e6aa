/**
 * DynamoDB's JSON wire protocol as the embedded engine speaks it: error types, the reply
 * shape every layer passes around, and calls to dynalite's own API in-process.
 */
import type { Server } from 'node:http';
import { Readable } from 'node:stream';

export const API_PREFIX = 'DynamoDB_20120810.';
export const JSON_TYPE = 'application/x-amz-json-1.0';

export const ERROR_TYPE = {
  validation: 'com.amazon.coral.validate#ValidationException',
  serialization: 'com.amazon.coral.service#SerializationException',
  canceled: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
  notFound: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
  idempotency: 'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException',
  internal: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  missingToken: 'com.amazon.coral.service#MissingAuthenticationTokenException',
  incompleteSignature: 'com.amazon.coral.service#IncompleteSignatureException',
  unrecognizedClient: 'com.amazon.coral.service#UnrecognizedClientException',
  invalidSignature: 'com.amazon.coral.service#InvalidSignatureException',
} as const;

/** A DynamoDB answer: HTTP status and JSON body. */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isReply(value: unknown): value is Reply {
  return isRecord(value) && typeof value.status === 'number' && isRecord(value.body);
}

export const validationError = (message: string): Reply => ({
  status: 400,
  body: { __type: ERROR_TYPE.validation, message },
});

/** The short name of an error body's type (`ConditionalCheckFailedException`). */
export function errorType(body: Record<string, unknown>): string {
  const type = typeof body.__type === 'string' ? body.__type : '';
  return type.slice(type.indexOf('#') + 1);
}

export function errorMessage(body: Record<string, unknown>): string | undefined {
  const message = body.message ?? body.Message;
  return typeof message === 'string' ? message : undefined;
}

/** One call to dynalite's own API (GetItem, PutItem, DescribeTable...). */
export type DynaliteCall = (operation: string, payload: Record<string, unknown>) => Promise<Reply>;

/**
 * Calls to dynalite's API handed to its request handler in-process, as the front hands a
 * client's request (dynalite checks no signature). A transaction makes two such calls per
 * item (snapshot, write): through an HTTP round trip over the socket each, that hop was most of
 * a transaction's cost in the engine (docs/triage-continuity.md "Measured").
 */
export function inProcessCalls(dynalite: Server): DynaliteCall {
  return (operation, payload) => {
    const data = Buffer.from(JSON.stringify(payload));
    return new Promise((resolve, reject) => {
      const request = Object.assign(Readable.from([data]), {
        method: 'POST',
        url: '/',
        headers: {
          'content-type': JSON_TYPE,
          'content-length': String(data.length),
          'x-amz-target': `${API_PREFIX}${operation}`,
          'x-amz-date': '20000101T000000Z',
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
      });
      // The part of http.ServerResponse dynalite's handler uses (status, headers, one end()).
      const response = {
        statusCode: 200,
        contentType: JSON_TYPE,
        setHeader: () => response,
        end: (body?: string | Buffer) => {
          try {
            const parsed: unknown = JSON.parse(body === undefined ? '{}' : body.toString());
            resolve({ status: response.statusCode, body: isRecord(parsed) ? parsed : {} });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
          return response;
        },
      };
      dynalite.emit('request', request, response);
    });
  };
}
