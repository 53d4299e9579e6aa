/**
 * `vexdesk`, the client CLI (docs/ci.md): talks only to the HTTPS API.
 * `main` parses the command line, runs one command and answers its exit code; every failure
 * arrives as a CliError carrying its code (0 pass, 1 gate failed, 2 usage or configuration,
 * 3 service or auth).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { runAction } from './action';
import { connect, connectionFromEnv, type ConnectionOptions } from './connection';
import { CliError, EXIT_CODES, UsageError } from './errors';
import { hasCondition } from './gate-policy';
import { parsePolicy, parseTimeout } from './options';
import { createOutput } from './output';
import { gate } from './commands/gate';
import { printUpload, upload } from './commands/upload';
import { sarif } from './commands/sarif';
import { verify } from './commands/verify';
import { whoami } from './commands/whoami';

export const USAGE = `vexdesk — Vexdesk's client for CI and people (HTTPS API only)

Usage:
  vexdesk upload FILE --product SLUG --release VERSION [--create] [--json]
  vexdesk gate (--sbom ID | --release ID) [--fail-on critical|high|medium|low] [--kev]
               [--epss N] [--untriaged] [--fixable-only] [--fail-on-unscored] [--json]
  vexdesk sarif (--sbom ID | --release ID) [--sbom-path PATH] [--output FILE]
  vexdesk whoami [--json]
  vexdesk verify SLUG-or-URL [--key FILE] [--fingerprint FPR] [--require-signature] [--json]

Connection (flags win over the environment):
  --url URL         VEXDESK_URL      the service, e.g. https://vexdesk.example.com
  --token TOKEN     VEXDESK_TOKEN    an API key (vxd_…) or workload token (vxo_…)
  --team ID         VEXDESK_TEAM     with no token inside GitHub Actions: sign in with the job's
  --audience A      VEXDESK_AUDIENCE   OIDC token under the team's trust policy (default audience vexdesk)
  --policy ID       VEXDESK_POLICY

Other options:
  --timeout SECONDS   how long to wait for a scan (default 600)
  --presigned         upload through the pre-signed flow even when the file fits a request
  --sbom-path PATH    sarif: the SBOM file as the repository names it (default sbom.json); code
                      scanning places the results there
  --output FILE       sarif: write the log to FILE instead of stdout
  --key FILE          verify: check the OpenPGP signature with this armored public key file
                      (obtained out of band) instead of the publisher's key list on the service
  --fingerprint FPR   verify: the signing key must have this fingerprint (as gpg prints it)
  --require-signature verify: fail when the disclosure has no public-key signature
  --json              machine-readable result on stdout; progress always goes to stderr

Gate: a finding decided not_affected or fixed never fails; expired or review-required decisions
count as undecided. Of the other findings (only those with a known fix under --fixable-only), one
that meets any condition given fails the gate.

Exit codes: 0 pass, 1 gate failed (or verify found a hash mismatch or a bad signature), 2 usage or configuration
error, 3 service or auth error (unreachable, 401/403, scan failed or timed out).`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  team: { type: 'string' },
  audience: { type: 'string' },
  policy: { type: 'string' },
  product: { type: 'string' },
  release: { type: 'string' },
  create: { type: 'boolean' },
  sbom: { type: 'string' },
  'fail-on': { type: 'string' },
  kev: { type: 'boolean' },
  epss: { type: 'string' },
  untriaged: { type: 'boolean' },
  'fixable-only': { type: 'boolean' },
  'fail-on-unscored': { type: 'boolean' },
  key: { type: 'string' },
  fingerprint: { type: 'string' },
  'require-signature': { type: 'boolean' },
  timeout: { type: 'string' },
  presigned: { type: 'boolean' },
  'sbom-path': { type: 'string' },
  output: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value.trim();
}

function uuid(value: string, flag: string): string {
  if (!UUID.test(value)) throw new UsageError(`${flag} must be an id (a UUID), got "${value}"`);
  return value.toLowerCase();
}

/** `--sbom ID` or `--release ID`, exactly one (gate, sarif). */
function targetOf(values: Values): { sbomId: string } | { releaseId: string } {
  if ((values.sbom === undefined) === (values.release === undefined))
    throw new UsageError('give exactly one of --sbom ID or --release ID');
  return values.sbom !== undefined
    ? { sbomId: uuid(values.sbom, '--sbom') }
    : { releaseId: uuid(values.release ?? '', '--release') };
}

function connectionFlags(values: Values): ConnectionOptions {
  return { url: values.url, token: values.token, team: values.team, audience: values.audience, policy: values.policy };
}

async function run(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  // The runner starts an Action's entry with no arguments and the step's inputs as INPUT_*.
  if (argv.length === 0 && env.GITHUB_ACTIONS === 'true' && Object.keys(env).some((name) => name.startsWith('INPUT_')))
    return runAction(env);
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_CODES.pass;
  }
  const out = createOutput(Boolean(values.json));
  const connection = connectionFromEnv(connectionFlags(values), env);
  const extra = (allowed: number) => {
    if (rest.length > allowed) throw new UsageError(`unexpected argument "${rest[allowed] ?? ''}"`);
  };
  switch (command) {
    case 'upload': {
      extra(1);
      const file = required(rest[0], 'the SBOM file (vexdesk upload FILE …)');
      const input = {
        file,
        product: required(values.product, '--product'),
        release: required(values.release, '--release'),
        create: Boolean(values.create),
        route: values.presigned ? ('presigned' as const) : ('auto' as const),
        timeoutMs: parseTimeout(values.timeout),
      };
      const api = await connect(connection, env, out.progress);
      printUpload(await upload(api, input, out), out);
      return EXIT_CODES.pass;
    }
    case 'gate': {
      extra(0);
      const target = targetOf(values);
      const policy = parsePolicy({
        failOn: values['fail-on'],
        kev: values.kev,
        epss: values.epss,
        untriaged: values.untriaged,
        fixableOnly: values['fixable-only'],
        failOnUnscored: values['fail-on-unscored'],
      });
      if (!hasCondition(policy))
        throw new UsageError(
          'gate needs at least one condition: --fail-on, --kev, --epss, --untriaged or --fail-on-unscored',
        );
      const timeoutMs = parseTimeout(values.timeout);
      const api = await connect(connection, env, out.progress);
      return gate(api, target, policy, timeoutMs, out);
    }
    case 'sarif': {
      extra(0);
      const target = targetOf(values);
      const api = await connect(connection, env, out.progress);
      await sarif(
        api,
        target,
        { sbomPath: values['sbom-path'] ?? 'sbom.json', output: values.output },
        { timeoutMs: parseTimeout(values.timeout), progress: out.progress },
        out,
      );
      return EXIT_CODES.pass;
    }
    case 'whoami': {
      extra(0);
      await whoami(await connect(connection, env, out.progress), out);
      return EXIT_CODES.pass;
    }
    case 'verify': {
      extra(1);
      return verify(required(rest[0], 'the disclosure (vexdesk verify SLUG-or-URL)'), connection.url, out, {
        keyFile: values.key,
        fingerprint: values.fingerprint,
        requireSignature: Boolean(values['require-signature']),
      });
    }
    case 'action':
      return runAction(env);
    case undefined:
      throw new UsageError(USAGE);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await run(argv, env);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`vexdesk: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`vexdesk: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_CODES.service;
  }
}
