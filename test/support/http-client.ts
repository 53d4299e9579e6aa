/** A small HTTP client for the local server, returning status, headers and parsed body. */
export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export function baseUrl(): string {
  const url = process.env.VEXDESK_TEST_BASE_URL;
  if (!url) throw new Error('VEXDESK_TEST_BASE_URL unset');
  return url;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export async function request<T = any>(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl()}${path}`, { method, headers, body });
  const buffer = Buffer.from(await response.arrayBuffer());
  const text = buffer.toString('utf8');
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export function client(key: string) {
  return {
    get: <T = any>(path: string) => request<T>('GET', path, { key }), // eslint-disable-line @typescript-eslint/no-explicit-any -- see request
    post: <T = any>(path: string, body?: unknown) => request<T>('POST', path, { key, body }), // eslint-disable-line @typescript-eslint/no-explicit-any -- see request
    put: <T = any>(path: string, body?: unknown) => request<T>('PUT', path, { key, body }), // eslint-disable-line @typescript-eslint/no-explicit-any -- see request
    delete: <T = any>(path: string) => request<T>('DELETE', path, { key }), // eslint-disable-line @typescript-eslint/no-explicit-any -- see request
  };
}
