/**
 * `npm start`: the API on http://127.0.0.1:$PORT backed by the embedded
 * DynamoDB- and S3-compatible engines, data under $DATA_DIR (default .data/).
 *
 * The port is bound first: its address is the PUBLIC_BASE_URL of generated documents
 * (unless PUBLIC_BASE_URL is set), and configuration is read once, so it must be known
 * before anything reads it. Until start-up is done the port answers 503.
 *
 * SIGINT, SIGTERM and SIGHUP (at any point, start-up included) stop accepting requests,
 * let in-flight ones finish, then close the engines so every acknowledged write is on
 * disk, and remove server.json. package.json runs this file with `exec node --import tsx/esm`,
 * so the process npm signals is this one: no shell or tsx parent between them that could
 * die and leave the server running.
 */
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { writePrivateFile } from '../shared/local/engine-credentials';
import { engineThreadFromEnvironment, startEmbeddedEngines, type EmbeddedEngines } from '../shared/local/engines';
import { applyLocalEnvironment } from '../shared/local/local-environment';
import type { BackgroundWork } from '../shared/local/background';
import type { LocalApi } from '../shared/local/api-gateway-emulator';
import {
  startLocalIdentityProvider,
  type DevAccount,
  type EmbeddedOidcProvider,
} from '../shared/local/embedded-oidc-provider';
import { consoleSite, siteFirst } from '../shared/local/console-static';

const projectRoot = resolve(fileURLToPath(import.meta.url), '../..');
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const port = Number(process.env.PORT ?? 3000);
const quiet = process.env.VEXDESK_QUIET === '1';

function log(line: Record<string, unknown>): void {
  if (!quiet) process.stdout.write(`${JSON.stringify({ timestamp: new Date().toISOString(), ...line })}\n`);
}

/** What start-up has brought up so far; a signal stops exactly that, in reverse order. */
const running: {
  engines?: EmbeddedEngines;
  server?: Server;
  background?: BackgroundWork;
  api?: LocalApi;
  identityProvider?: EmbeddedOidcProvider;
} = {};
/** The embedded OpenID provider's accounts: the demo admin's, once bootstrap has read or made it. */
let devAccounts: DevAccount[] = [];
let stopSignal: NodeJS.Signals | undefined;

/** Answers while start-up runs (corpus load, recovery): the port is bound but nothing is served yet. */
function notReady(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1', Connection: 'close' });
  response.end(JSON.stringify({ error: { code: 'starting', message: 'The server is starting; retry in a moment.' } }));
}

async function main(): Promise<void> {
  // Creates the data directory owner-only (0700) and its engine key pair.
  running.engines = await startEmbeddedEngines({ dataDir, thread: engineThreadFromEnvironment(process.env) });
  if (stopSignal) return;
  if (quiet) process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

  // The web console (web/dist) at `/`, served from the start; `/api/*` stays the API's (docs/console.md).
  const site = consoleSite(join(projectRoot, 'web/dist'));
  const starting = siteFirst(site, notReady);
  const server = createServer(starting);
  running.server = server;
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      listening();
    });
  });
  const { port: actualPort } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${actualPort}`;
  // PUBLIC_BASE_URL defaults to the listening address locally; an explicit value (a tunnel, a proxy) wins.
  applyLocalEnvironment(running.engines, baseUrl);
  // Browser sign-in through the embedded OpenID provider unless SIGN_IN_ISSUER names one (docs/sign-in.md); before config is read.
  running.identityProvider = await startLocalIdentityProvider(dataDir, () => devAccounts);

  // Imported after the environment is set: configuration is read once at load.
  const { config } = await import('../shared/service/config');
  const { ensureLocalResources } = await import('../shared/local/resources');
  const { ensureDemoTeam } = await import('../shared/local/demo-bootstrap');
  const { createLocalApi } = await import('../shared/local/api-gateway-emulator');
  const { startLocalBackgroundWork } = await import('../shared/local/background');
  const { TeamQuotas } = await import('../shared/service/identity/team-quota');
  const { DEFAULT_PUBLIC_CLIENT_LIMIT, DEFAULT_SIGN_IN_CLIENT_LIMIT, PUBLIC_CLIENT_WINDOW_SECONDS } =
    await import('../shared/service/http/throttling');
  const { publicBaseUrl } = config(); // validates the whole configuration now, not at the first request

  await ensureLocalResources();
  if (stopSignal) return;
  // The table's one-off migrations, before anything reads it (a GetItem each once done).
  const { TABLE_MIGRATIONS } = await import('../shared/service/table-migrations');
  for (const migration of TABLE_MIGRATIONS) {
    const { result, changed } = await migration.run();
    if (changed > 0) log({ type: 'migration', message: migration.message, result });
  }
  if (stopSignal) return;
  const engines = running.engines;
  running.background = await startLocalBackgroundWork({ dataDir, log, foreignWrites: () => engines.foreignWrites() });
  if (stopSignal) return;
  const { record, created, loginCreated } = await ensureDemoTeam(dataDir);
  if (record.login) devAccounts = [{ ...record.login, name: 'Demo Admin' }];
  if (stopSignal) return;

  server.off('request', starting);
  running.api = createLocalApi({
    server,
    site,
    log,
    // The team default comes from TEAM_RATE_LIMIT / TEAM_BURST_LIMIT (shared/service/config.ts), as on AWS.
    throttling: {
      quotaOf: (usageIdentifier) => TeamQuotas.ofUsageIdentifier(usageIdentifier),
      publicClientLimit: clientLimitOf('VEXDESK_PUBLIC_CLIENT_LIMIT', DEFAULT_PUBLIC_CLIENT_LIMIT),
      signInClientLimit: clientLimitOf('VEXDESK_SIGN_IN_CLIENT_LIMIT', DEFAULT_SIGN_IN_CLIENT_LIMIT),
      windowSeconds: PUBLIC_CLIENT_WINDOW_SECONDS,
    },
  });
  await writePrivateFile(join(dataDir, 'server.json'), `${JSON.stringify({ pid: process.pid, baseUrl })}\n`);

  const bootstrapFile = join(dataDir, 'bootstrap.json');
  // The key is a secret: printed on the start that created it, never again (the local-runtime contract).
  const keyLines = created
    ? [
        `Demo team ${record.teamId} created. Its all-scopes API key (shown once, also in ${bootstrapFile}):`,
        `  ${record.apiKey}`,
        `Try: curl -H "Authorization: Bearer ${record.apiKey}" ${baseUrl}/api/products`,
      ]
    : [`Demo team ${record.teamId}; its API key is in ${bootstrapFile} (apiKey).`];
  const signInLines =
    !running.identityProvider || !record.login
      ? []
      : loginCreated
        ? [
            `Sign in at ${baseUrl}/api/auth/login as ${record.login.email} with password (shown once, also in ${bootstrapFile}):`,
            `  ${record.login.password}`,
          ]
        : [
            `Sign in at ${baseUrl}/api/auth/login as ${record.login.email}; the password is in ${bootstrapFile} (login).`,
          ];
  process.stdout.write(
    [
      '',
      `Vexdesk API listening on ${baseUrl}  (data: ${dataDir})`,
      ...(publicBaseUrl === baseUrl ? [] : [`Public base URL of generated documents: ${publicBaseUrl}`]),
      ...keyLines,
      ...signInLines,
      '',
    ].join('\n') + '\n',
  );
}

/** Stops what start-up brought up, newest first; each step runs even if an earlier one failed. */
async function stopRunning(): Promise<void> {
  const { api, server, background, engines, identityProvider } = running;
  const steps: Array<[string, (() => Promise<void>) | undefined]> = [
    ['api', api ? () => api.close() : server ? () => closeServer(server) : undefined],
    ['identity provider', identityProvider ? () => identityProvider.close() : undefined],
    ['background work', background ? () => background.stop() : undefined],
    ['engines', engines ? () => engines.stop() : undefined],
    ['server.json', () => rm(join(dataDir, 'server.json'), { force: true })],
  ];
  let failed = false;
  for (const [name, step] of steps) {
    try {
      await step?.();
    } catch (error) {
      failed = true;
      process.stderr.write(`vexdesk: stopping the ${name} failed: ${(error as Error).stack ?? String(error)}\n`);
    }
  }
  if (failed) process.exitCode = 1;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((closed) => {
    server.close(() => closed());
    server.closeAllConnections();
  });
}

function shutdown(signal: NodeJS.Signals): void {
  if (stopSignal) return;
  stopSignal = signal;
  log({ type: 'shutdown', signal });
  void (async () => {
    // Start-up checks stopSignal between its steps; let the current step end before stopping what it started.
    await starting.catch(() => undefined);
    await stopRunning();
    process.exit();
  })();
}

// Registered before anything starts, so a signal during start-up also stops the engines cleanly.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));

/** Requests per client IP per window of a per-client rule (the environment variable `name`); WAF accepts 10 to 2,000,000,000. */
function clientLimitOf(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 10 || value > 2_000_000_000)
    throw new Error(`${name} must be an integer from 10 to 2000000000, got ${JSON.stringify(raw)}`);
  return value;
}

const starting = main();
starting.catch(async (error: unknown) => {
  process.stderr.write(`vexdesk failed to start: ${(error as Error).stack ?? String(error)}\n`);
  if (stopSignal) return; // the shutdown in progress stops what started
  await stopRunning();
  process.exit(1);
});
