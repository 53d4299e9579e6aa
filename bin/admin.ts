/**
 * Admin CLI (the local-runtime contract other tools rely on, README.md). Prints JSON on stdout.
 *
 * Target selection:
 * - default: the embedded engines under $DATA_DIR (default .data/) — those of a
 *   running `npm start` when there is one, otherwise started for this command;
 * - a deployed stack: `--stack NAME` (reads the stack outputs) or
 *   `--table T --sbom-bucket B --disclosure-bucket D [--usage-plan ID]` (AWS
 *   credentials from the usual SDK chain).
 *
 * On a deployed stack, `team create` and `team quota set` also provision the
 * team's usage-plan API key in API Gateway (shared/service/identity/usage-plan-keys.ts).
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const USAGE = `Usage: npm run -s admin -- <command> [options]
  team create --name NAME
  team quota set --team ID (--rate RPS --burst N | --default)
  team quota show --team ID
  member add --team ID --email E --name N [--permissions settings.manage,...]
  key create --team ID --name NAME --scopes s1,s2|all [--expires-in-days 30|90|180|365] [--by MEMBER_ID]
  key revoke --team ID --id KEY_ID [--by MEMBER_ID]
  key list --team ID
  trust-policy create --team ID --name N --audience A --claims JSON --scopes s1,s2 [--issuer URL] [--ttl-minutes M] [--by MEMBER_ID]
      (issuer default https://token.actions.githubusercontent.com; claims e.g. '{"repository_owner_id":"65","sub":"repo:octo-org/*"}'; docs/oidc.md)
  trust-policy list --team ID
  trust-policy delete --team ID --id POLICY_ID [--by MEMBER_ID]
  publisher-key rotate --team ID [--by MEMBER_ID]   (new disclosure signing key; older keys stay published)
  publisher-key list --team ID
  corpus import PATH...   (OSV zip or directory, CISA KEV JSON, EPSS CSV or CSV.gz)
  table migrate [--max-items N]   (moves items under old keys to the current layout, records owners of older keys and trust policies, puts older SBOMs into the package index; idempotent, resumable)
Target (default: embedded engines in $DATA_DIR): --stack NAME | --table T --sbom-bucket B --disclosure-bucket D [--usage-plan ID] [--region R]`;

class UsageError extends Error {}

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    team: { type: 'string' },
    email: { type: 'string' },
    permissions: { type: 'string' },
    scopes: { type: 'string' },
    'expires-in-days': { type: 'string' },
    by: { type: 'string' },
    id: { type: 'string' },
    stack: { type: 'string' },
    table: { type: 'string' },
    'sbom-bucket': { type: 'string' },
    'disclosure-bucket': { type: 'string' },
    region: { type: 'string' },
    help: { type: 'boolean' },
    rate: { type: 'string' },
    burst: { type: 'string' },
    default: { type: 'boolean' },
    'usage-plan': { type: 'string' },
    'max-items': { type: 'string' },
    issuer: { type: 'string' },
    audience: { type: 'string' },
    claims: { type: 'string' },
    'ttl-minutes': { type: 'string' },
  },
});

function required(name: keyof typeof flags): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** The stack's default usage plan (output TeamUsagePlanId) when the target is a deployed stack. */
let teamUsagePlanId: string | undefined;
let deployed = false;

async function connectToDeployedStack(): Promise<boolean> {
  if (flags.region) process.env.AWS_REGION = flags.region;
  if (flags.stack) {
    const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
    const { Stacks } = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: flags.stack }));
    const outputs: Record<string, string | undefined> = Object.fromEntries(
      (Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue]),
    );
    process.env.TABLE_NAME = outputs.TableName;
    process.env.SBOM_BUCKET = outputs.SbomBucketName;
    process.env.DISCLOSURE_BUCKET = outputs.DisclosureBucketName;
    // Rotation seals the new private key under the stack's KMS key, as the functions do.
    process.env.PUBLISHER_KEY_KMS_KEY_ID ??= outputs.PublisherKeyKmsKeyArn;
    // shared/service/config.ts requires it; the stack's functions use the same value.
    process.env.PUBLIC_BASE_URL ??= outputs.PublicBaseUrl;
    teamUsagePlanId = outputs.TeamUsagePlanId;
    deployed = true;
    return true;
  }
  if (flags.table) {
    process.env.TABLE_NAME = flags.table;
    process.env.SBOM_BUCKET = required('sbom-bucket');
    process.env.DISCLOSURE_BUCKET = required('disclosure-bucket');
    if (!process.env.PUBLIC_BASE_URL)
      throw new UsageError('--table needs PUBLIC_BASE_URL in the environment: the stack output PublicBaseUrl');
    teamUsagePlanId = flags['usage-plan'];
    deployed = true;
    return true;
  }
  return false;
}

async function run(): Promise<unknown> {
  const [noun, verb, ...rest] = positionals;
  if (flags.help || !noun) throw new UsageError('');
  let stopEngines: (() => Promise<void>) | undefined;
  if (!(await connectToDeployedStack())) {
    const { engineThreadFromEnvironment, findRunningEngines, startEmbeddedEngines } =
      await import('../shared/local/engines');
    const { applyLocalEnvironment } = await import('../shared/local/local-environment');
    const dataDir = resolve(process.env.DATA_DIR ?? '.data');
    // Both carry the data directory's key pair, the only credentials the engines accept.
    const running = await findRunningEngines(dataDir);
    if (running) {
      applyLocalEnvironment(running);
    } else {
      // Starting engines on a directory with no stored tables would create an empty one, and every
      // command would then answer "Team not found": refuse, naming the directory looked at.
      if (!existsSync(join(dataDir, 'dynamodb'))) {
        throw new UsageError(
          `No Vexdesk data in ${dataDir} (${process.env.DATA_DIR === undefined ? 'DATA_DIR is not set; the default is .data/ in the current directory' : `DATA_DIR=${process.env.DATA_DIR}`}): ` +
            "no server runs on it and it holds no stored tables. Run the command from the directory where `npm start` ran, set DATA_DIR to that server's data directory, or start the server once to create it.",
        );
      }
      // LevelDB admits one process: with no server running, this command owns the engines briefly.
      const engines = await startEmbeddedEngines({ dataDir, thread: engineThreadFromEnvironment(process.env) });
      applyLocalEnvironment(engines);
      stopEngines = () => engines.stop();
    }
    const { ensureLocalResources } = await import('../shared/local/resources');
    await ensureLocalResources();
  }
  try {
    return await dispatch(noun, verb, rest);
  } finally {
    await stopEngines?.();
  }
}

async function dispatch(noun: string, verb: string | undefined, rest: string[]): Promise<unknown> {
  const { OPERATOR_ACTOR } = await import('../shared/service/identity/actor');
  const { Teams, Members, permissionSchema } = await import('../shared/service/identity/teams');
  const { ApiKeys, EXPIRY_CHOICES_DAYS } = await import('../shared/service/identity/api-keys');
  const { SCOPES } = await import('../shared/service/identity/scopes');
  switch (`${noun} ${verb ?? ''}`) {
    case 'team create': {
      requireUsagePlanWhenDeployed();
      const team = await Teams.create(required('name'), OPERATOR_ACTOR);
      await provisionTeamQuota(team.id, null);
      return { teamId: team.id };
    }
    case 'team quota': {
      const { TeamQuotas, throttleQuotaSchema } = await import('../shared/service/identity/team-quota');
      const teamId = required('team');
      if (rest[0] === 'show') return { teamId, throttle: await TeamQuotas.get(teamId) };
      if (rest[0] !== 'set') throw new UsageError('team quota needs set or show');
      if (flags.default && (flags.rate !== undefined || flags.burst !== undefined))
        throw new UsageError('--default excludes --rate and --burst');
      const parsed = flags.default
        ? null
        : throttleQuotaSchema.safeParse({ rateLimit: Number(required('rate')), burstLimit: Number(required('burst')) });
      if (parsed && !parsed.success)
        throw new UsageError('--rate must be an integer from 1 to 10000 and --burst from 1 to 5000');
      const override = parsed ? parsed.data : null;
      requireUsagePlanWhenDeployed();
      await TeamQuotas.get(teamId); // 404 for an unknown team before anything changes
      // API Gateway first: a failure there leaves the stored quota (what GET /api/settings shows) unchanged.
      await provisionTeamQuota(teamId, override);
      return { teamId, throttle: await TeamQuotas.set(teamId, override, OPERATOR_ACTOR) };
    }
    case 'member add': {
      const permissions = (flags.permissions ?? '')
        .split(',')
        .filter(Boolean)
        .map((permission) => permissionSchema.parse(permission));
      const member = await Members.add(
        required('team'),
        { email: required('email'), name: required('name'), permissions },
        OPERATOR_ACTOR,
      );
      return { memberId: member.id };
    }
    case 'key create': {
      const scopes =
        required('scopes') === 'all'
          ? [...SCOPES]
          : required('scopes')
              .split(',')
              .map((scope) => scope.trim())
              .filter(Boolean);
      const expiresInDays = flags['expires-in-days'] === undefined ? undefined : Number(flags['expires-in-days']);
      if (expiresInDays !== undefined && !(EXPIRY_CHOICES_DAYS as readonly number[]).includes(expiresInDays)) {
        throw new UsageError(
          `--expires-in-days must be one of ${EXPIRY_CHOICES_DAYS.join(', ')} (got "${flags['expires-in-days']}")`,
        );
      }
      const key = await ApiKeys.create(
        required('team'),
        { name: required('name'), scopes, expiresInDays },
        { byMemberId: flags.by, operator: OPERATOR_ACTOR },
      );
      return { id: key.id, key: key.key, name: key.name, scopes: key.scopes, expiresAt: key.expiresAt };
    }
    case 'key revoke': {
      const key = await ApiKeys.revoke(required('team'), required('id'), {
        byMemberId: flags.by,
        operator: OPERATOR_ACTOR,
      });
      return { id: key.id, name: key.name, revokedAt: key.revokedAt };
    }
    case 'key list': {
      const list = await ApiKeys.list(required('team'));
      return {
        data: list.map(({ id, name, scopes, createdAt, expiresAt, revokedAt }) => ({
          id,
          name,
          scopes,
          createdAt,
          expiresAt,
          revokedAt,
        })),
      };
    }
    case 'trust-policy create': {
      const { TrustPolicies, managerOf } = await import('../shared/service/identity/trust-policies');
      const teamId = required('team');
      let claims: unknown;
      try {
        claims = JSON.parse(required('claims'));
      } catch {
        throw new UsageError(
          '--claims must be a JSON object, e.g. \'{"repository_owner_id":"65","sub":"repo:octo-org/octo-repo:*"}\'',
        );
      }
      const ttlMinutes = flags['ttl-minutes'] === undefined ? undefined : Number(flags['ttl-minutes']);
      if (ttlMinutes !== undefined && !Number.isInteger(ttlMinutes))
        throw new UsageError('--ttl-minutes must be a whole number of minutes (1-60)');
      const input = {
        name: required('name'),
        audience: required('audience'),
        claims,
        ttlMinutes,
        scopes: required('scopes')
          .split(',')
          .map((scope) => scope.trim())
          .filter(Boolean),
        ...(flags.issuer === undefined ? {} : { issuer: flags.issuer }),
      };
      return TrustPolicies.create(teamId, input, await managerOf(teamId, flags.by, OPERATOR_ACTOR));
    }
    case 'trust-policy list': {
      const { TrustPolicies } = await import('../shared/service/identity/trust-policies');
      const teamId = required('team');
      await Teams.get(teamId);
      return { data: await TrustPolicies.list(teamId) };
    }
    case 'trust-policy delete': {
      const { TrustPolicies, managerOf } = await import('../shared/service/identity/trust-policies');
      const teamId = required('team');
      const id = required('id');
      await TrustPolicies.delete(teamId, id, await managerOf(teamId, flags.by, OPERATOR_ACTOR));
      return { id, deleted: true };
    }
    case 'publisher-key rotate': {
      const { PublisherKeyRotation } = await import('../shared/service/disclosures/publisher-key-rotation');
      const teamId = required('team');
      const {
        armored: _armored,
        jwk: _jwk,
        ...key
      } = await PublisherKeyRotation.rotate(
        teamId,
        await PublisherKeyRotation.actorFor(teamId, flags.by, OPERATOR_ACTOR),
      );
      return key;
    }
    case 'publisher-key list': {
      const { PublisherKeyRotation } = await import('../shared/service/disclosures/publisher-key-rotation');
      return {
        data: (await PublisherKeyRotation.list(required('team'))).map(
          ({ armored: _armored, jwk: _jwk, ...key }) => key,
        ),
      };
    }
    case 'corpus import': {
      const { importCorpusFilesExclusively } = await import('../shared/service/corpus/import');
      if (rest.length === 0) throw new UsageError('corpus import needs at least one PATH');
      const { importProgressReporter } = await import('../shared/service/corpus/import-progress');
      // Progress on stderr (stdout carries the JSON result): a live line on a terminal, JSON lines otherwise.
      const progress = importProgressReporter(process.stderr);
      const imported = await importCorpusFilesExclusively(
        rest.map((path) => resolve(path)),
        { onProgress: progress.onProgress },
      );
      progress.done();
      // The same re-evaluation the scheduled refresh runs on AWS: findings of watched releases follow the corpus now.
      const { applyCorpusChanges } = await import('../shared/service/watch/watch');
      return { ...imported, reevaluation: await applyCorpusChanges() };
    }
    case 'table migrate': {
      const { migrateKeyLayout } = await import('../shared/service/data/key-layout-migration');
      const { migrateWatchIndex } = await import('../shared/service/watch/watch-index-migration');
      if (flags['max-items'] === undefined) {
        const { TABLE_MIGRATIONS } = await import('../shared/service/table-migrations');
        const answers: Record<string, unknown> = {};
        for (const migration of TABLE_MIGRATIONS)
          answers[migration.name] = (await migration.run()).result ?? 'already done';
        return answers;
      }
      const maxItems = Number(flags['max-items']);
      if (!Number.isInteger(maxItems) || maxItems < 1) throw new UsageError('--max-items must be a positive integer');
      return { migrated: await migrateKeyLayout({ maxItems }), watchIndex: await migrateWatchIndex({ maxItems }) };
    }
    default:
      throw new UsageError(`Unknown command "${noun} ${verb ?? ''}"`);
  }
}

/**
 * On a deployed stack, puts the team's usage-plan key where its quota says
 * (usage-plan-keys.ts); locally the emulator reads the team item, so nothing to do.
 */
function requireUsagePlanWhenDeployed(): void {
  if (deployed && !teamUsagePlanId)
    throw new UsageError(
      'A deployed stack needs its usage plan: use --stack, or pass --usage-plan ID (stack output TeamUsagePlanId)',
    );
}

async function provisionTeamQuota(
  teamId: string,
  quota: { rateLimit: number; burstLimit: number } | null,
): Promise<void> {
  if (!deployed || !teamUsagePlanId) return;
  const { APIGatewayClient } = await import('@aws-sdk/client-api-gateway');
  const { applyTeamQuota } = await import('../shared/service/identity/usage-plan-keys');
  try {
    await applyTeamQuota(new APIGatewayClient({}), teamUsagePlanId, teamId, quota);
  } catch (error) {
    throw new Error(
      `Team ${teamId}: API Gateway usage-plan key not provisioned (${(error as Error).message}); rerun \`team quota set --team ${teamId} --default\` (or with --rate/--burst)`,
      { cause: error },
    );
  }
}

run()
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.exit(0);
  })
  .catch(async (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message ? `${error.message}\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    const { AppError } = await import('../shared/service/errors');
    const body =
      error instanceof AppError
        ? { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } }
        : { error: { code: 'failed', message: (error as Error).message } };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    process.exit(1);
  });
