/**
 * `npm start`: the API on http://127.0.0.1:$PORT backed by the embedded
 * DynamoDB- and S3-compatible engines, data under $DATA_DIR (default .data/).
 * SIGINT/SIGTERM stop accepting requests, let in-flight ones finish, then close
 * the engines so every acknowledged write is on disk.
 */
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { writePrivateFile } from '../shared/local/engine-credentials';
import { startEmbeddedEngines } from '../shared/local/engines';
import { applyLocalEnvironment } from '../shared/local/local-environment';

const projectRoot = resolve(fileURLToPath(import.meta.url), '../..');
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const port = Number(process.env.PORT ?? 3000);
const quiet = process.env.VEXDESK_QUIET === '1';

function log(line: Record<string, unknown>): void {
  if (!quiet) process.stdout.write(`${JSON.stringify({ timestamp: new Date().toISOString(), ...line })}\n`);
}

async function main(): Promise<void> {
  // Creates the data directory owner-only (0700) and its engine key pair.
  const engines = await startEmbeddedEngines({ dataDir });
  applyLocalEnvironment(engines);
  if (quiet) process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

  // Imported after the environment is set: configuration is read once at load.
  const { ensureLocalResources } = await import('../shared/local/resources');
  const { ensureDemoTeam } = await import('../shared/local/demo-bootstrap');
  const { createLocalApi } = await import('../shared/local/api-gateway-emulator');
  const { startLocalBackgroundWork } = await import('../shared/local/background');
  const { TeamQuotas } = await import('../shared/identity/team-quota');
  const { DEFAULT_PUBLIC_CLIENT_LIMIT, PUBLIC_CLIENT_WINDOW_SECONDS } = await import('../shared/http/throttling');

  await ensureLocalResources();
  // Items under the old key layout move before anything reads the table (a no-op once done).
  const { ensureKeyLayout } = await import('../shared/data/key-layout-migration');
  const migrated = await ensureKeyLayout();
  if (migrated && migrated.pointers + migrated.auditEntries > 0) log({ type: 'migration', message: 'id pointers and audit entries moved to the spread key layout before serving', result: migrated });
  const background = await startLocalBackgroundWork({ dataDir, log });
  const { record, created } = await ensureDemoTeam(dataDir);

  const api = createLocalApi({
    functionsDir: join(projectRoot, 'functions'),
    log,
    // The team default comes from TEAM_RATE_LIMIT / TEAM_BURST_LIMIT (shared/config.ts), as on AWS.
    throttling: {
      quotaOf: (usageIdentifier) => TeamQuotas.ofUsageIdentifier(usageIdentifier),
      publicClientLimit: publicClientLimitOf(process.env.VEXDESK_PUBLIC_CLIENT_LIMIT, DEFAULT_PUBLIC_CLIENT_LIMIT),
      windowSeconds: PUBLIC_CLIENT_WINDOW_SECONDS,
    },
  });
  await new Promise<void>((listening) => api.server.listen(port, '127.0.0.1', listening));
  const { port: actualPort } = api.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${actualPort}`;
  await writePrivateFile(join(dataDir, 'server.json'), `${JSON.stringify({ pid: process.pid, baseUrl })}\n`);

  process.stdout.write(
    [
      '',
      `Vexdesk API listening on ${baseUrl}  (data: ${dataDir})`,
      created ? `Demo team ${record.teamId} created. Its all-scopes API key (shown once, also in ${join(dataDir, 'bootstrap.json')}):` : `Demo team ${record.teamId}; API key in ${join(dataDir, 'bootstrap.json')}:`,
      `  ${record.apiKey}`,
      `Try: curl -H "Authorization: Bearer ${record.apiKey}" ${baseUrl}/api/products`,
      '',
    ].join('\n') + '\n',
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log({ type: 'shutdown', signal });
    void (async () => {
      await api.close();
      await background.stop();
      await engines.stop();
      await rm(join(dataDir, 'server.json'), { force: true });
      process.exit(0);
    })();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

/** Requests per client IP per window on the disclosure routes; WAF accepts 10 to 2,000,000,000. */
function publicClientLimitOf(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 10 || value > 2_000_000_000) throw new Error(`VEXDESK_PUBLIC_CLIENT_LIMIT must be an integer from 10 to 2000000000, got ${JSON.stringify(raw)}`);
  return value;
}

main().catch((error: unknown) => {
  process.stderr.write(`vexdesk failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
