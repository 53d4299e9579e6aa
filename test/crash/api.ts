/** The crash test's reads of the API: a GET with the team's key, its status and the `data` of the answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reads arbitrary JSON answers
export async function api(baseUrl: string, apiKey: string, path: string): Promise<{ status: number; data: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { data?: unknown };
  return { status: response.status, data: body.data };
}
