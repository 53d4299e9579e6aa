/**
 * The AWS SDK's transport to an embedded DynamoDB engine that runs in this process: on this very
 * thread (engines.ts, `thread: 'main'`), or on the engine worker thread, which `serve` then reaches
 * by a message (engines.ts `startEngineThread`). Over loopback HTTP every call paid for a connection's system
 * calls and an HTTP parser on each side: on this kind of machine that was a third of the busy
 * time of a server whose engines and API share a core (docs/architecture/local-runtime.md
 * "Where the engines run"). This handler hands the request the SDK built to the
 * engine as a function call (or a message) instead, unsigned (`leaveUnsigned`: only this process can make the call,
 * so the engine checks no signature), and the engine answers it with dynalite's own validations and
 * actions as over HTTP. The SDK's serialisation, retries, error parsing, the call log and the tenant
 * guard run unchanged; other processes (admin CLI, tests) use the signed loopback endpoint.
 */
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler, RequestSigner } from '@smithy/types';
import type { EngineRequest, EngineResponse } from './embedded-dynamo-wire';

/**
 * The SDK's signer for in-process calls: the engine checks no signature on a call that only this
 * process can make, so none is computed (a SigV4 signature costs a canonical request, two hashes and two HMACs per call).
 */
export const leaveUnsigned: RequestSigner = { sign: (request) => Promise.resolve(request) };

/** The engine's entry for requests handed over in-process; undefined when it is stopping. */
export type ServeEngineRequest = (request: EngineRequest) => Promise<EngineResponse | undefined>;

/** What a dropped connection looks like to the SDK: a transient error it retries. */
function connectionReset(message: string): Error {
  return Object.assign(new Error(message), { code: 'ECONNRESET' });
}

function abortError(): Error {
  const error = new Error('Request aborted');
  error.name = 'AbortError';
  return error;
}

function queryString(query: HttpRequest['query']): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      pairs.push(item === null ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(item)}`);
    }
  }
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** The request body as a Buffer over the same bytes (the SDK's JSON body is a Uint8Array whose valueOf is a string). */
function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

export class InProcessDynamoHandler implements RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  private closed = false;

  constructor(private readonly serve: ServeEngineRequest) {}

  async handle(request: HttpRequest, options: HttpHandlerOptions = {}): Promise<{ response: HttpResponse }> {
    if ((options.abortSignal as { aborted?: boolean } | undefined)?.aborted) throw abortError();
    if (this.closed) throw connectionReset('the embedded engines have stopped');
    const body = bodyBytes(request.body);
    // DynamoDB's requests are JSON documents; a stream would need the HTTP handler.
    if (body === undefined) throw new Error('the in-process DynamoDB transport takes no streamed body');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    const answer = await this.serve({
      method: request.method,
      url: `${request.path}${queryString(request.query)}`,
      headers,
      body,
    });
    if (answer === undefined) throw connectionReset('the embedded engine is stopping');
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) responseHeaders[name.toLowerCase()] = value;
    return { response: { statusCode: answer.status, headers: responseHeaders, body: answer.body } };
  }

  /** Shared by every client of the process: a client's destroy() leaves it open. */
  destroy(): void {}

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  /** The engines stopped: later calls fail as a refused connection would. */
  close(): void {
    this.closed = true;
  }
}
