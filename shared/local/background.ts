/**
 * Work the deployed stack does outside API requests (scan queue worker,
 * scheduled corpus refresh), run in-process locally. Each later piece
 * registers here; stop() waits for running jobs.
 */
export interface BackgroundWork {
  stop(): Promise<void>;
}

export function startLocalBackgroundWork(_options: { dataDir: string; log: (line: Record<string, unknown>) => void }): Promise<BackgroundWork> {
  return Promise.resolve({ stop: () => Promise.resolve() });
}
