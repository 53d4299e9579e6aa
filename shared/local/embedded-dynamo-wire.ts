/**
 * DynamoDB's JSON wire protocol as the embedded engine speaks it: error types, the reply
 * shape every layer passes around, and calls to dynalite's own API in-process.
 */
import type { IncomingHttpHeaders, Server } from 'node:http';
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

/** One request to the engine, whichever way it came: the HTTP front or the in-process port (engine-worker.ts). */
export interface EngineRequest {
  method: string;
  url: string;
  /** Lower-case names, as Node's HTTP server gives them. */
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The engine's answer, ready for the wire. */
export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Hands a request to dynalite's own request handler in-process (dynalite checks no signature:
 * the caller did). Resolves with its answer once dynalite ended it: for a write, after LevelDB
 * took it. Uses the part of http.ServerResponse the handler touches (status, headers, one end()).
 */
export function dynaliteAnswer(dynalite: Server, request: EngineRequest): Promise<EngineResponse> {
  return new Promise((resolve) => {
    const replay = Object.assign(Readable.from(request.body.length > 0 ? [request.body] : []), {
      method: request.method,
      url: request.url,
      headers: request.headers,
    });
    const headers: Record<string, string> = {};
    const response = {
      statusCode: 200,
      contentType: JSON_TYPE,
      setHeader: (name: string, value: string | number) => {
        headers[name] = String(value);
        return response;
      },
      end: (body?: string | Buffer) => {
        resolve({
          status: response.statusCode,
          headers,
          body: body === undefined ? Buffer.alloc(0) : Buffer.from(body),
        });
        return response;
      },
    };
    dynalite.emit('request', replay, response);
  });
}

/** One call to dynalite's own API (GetItem, PutItem, DescribeTable...). */
export type DynaliteCall = (operation: string, payload: Record<string, unknown>) => Promise<Reply>;

/**
 * Calls to dynalite's API in-process, for the transaction engine (table descriptions, TransactGetItems'
 * reads) and the recovery of journal records; dynalite's validation and action run as for any call.
 */
export function inProcessCalls(
  run: (operation: string, request: Record<string, unknown>) => Promise<Reply>,
): DynaliteCall {
  // A copy: dynalite's validation rewrites the request it is given.
  return (operation, payload) => run(operation, structuredClone(payload));
}
