/**
 * Where the client talks to and with what credential: flags first, then VEXDESK_URL /
 * VEXDESK_TOKEN. Without a token, inside GitHub Actions (ACTIONS_ID_TOKEN_REQUEST_URL set, the
 * job granted `id-token: write`) the job's OIDC token is exchanged for a short-lived `vxo_`
 * token under the team's trust policy (docs/oidc.md): no stored secret.
 */
import { createApiClient, ok, type ApiClient } from './api-client';
import { ServiceError, UsageError } from './errors';

export interface ConnectionOptions {
  url?: string | undefined;
  token?: string | undefined;
  /** Team id the OIDC exchange names (the token never picks the team). */
  team?: string | undefined;
  policy?: string | undefined;
  audience?: string | undefined;
}

export const DEFAULT_AUDIENCE = 'vexdesk';

export function connectionFromEnv(flags: ConnectionOptions, env: NodeJS.ProcessEnv): ConnectionOptions {
  return {
    url: flags.url ?? env.VEXDESK_URL,
    token: flags.token ?? env.VEXDESK_TOKEN,
    team: flags.team ?? env.VEXDESK_TEAM,
    policy: flags.policy ?? env.VEXDESK_POLICY,
    audience: flags.audience ?? env.VEXDESK_AUDIENCE,
  };
}

/** A client with no credential (public routes), for `verify`. */
export function anonymousClient(options: ConnectionOptions): ApiClient {
  if (!options.url) throw new UsageError('no service URL: pass --url or set VEXDESK_URL');
  return createApiClient(options.url);
}

export async function connect(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv,
  progress: (message: string) => void,
): Promise<ApiClient> {
  const anonymous = anonymousClient(options);
  if (options.token) return createApiClient(anonymous.baseUrl, options.token);
  if (!env.ACTIONS_ID_TOKEN_REQUEST_URL) {
    throw new UsageError(
      'no credential: pass --token or set VEXDESK_TOKEN; in GitHub Actions grant `id-token: write` and name the team (--team / VEXDESK_TEAM) to sign in with OIDC',
    );
  }
  if (!options.team)
    throw new UsageError(
      'signing in with OIDC needs the team id: pass --team or set VEXDESK_TEAM (the `team` input of the Action)',
    );
  progress("signing in with the job's GitHub OIDC token");
  const token = await exchangeOidc(anonymous, env, options.team, options.policy, options.audience ?? DEFAULT_AUDIENCE);
  return createApiClient(anonymous.baseUrl, token);
}

/**
 * Masks a secret in the GitHub Actions log. Written to stderr, which the runner reads for
 * workflow commands as it reads stdout, so `--json` output on stdout stays one JSON document.
 */
export function maskInActionsLog(secret: string, env: NodeJS.ProcessEnv): void {
  if (env.GITHUB_ACTIONS === 'true') process.stderr.write(`::add-mask::${secret}\n`);
}

/**
 * The job's OIDC token, by the runner's documented wire protocol (the one @actions/core's
 * getIDToken speaks): GET ACTIONS_ID_TOKEN_REQUEST_URL&audience=… with the request token as
 * bearer → `{ value }`.
 */
async function gitHubIdToken(env: NodeJS.ProcessEnv, audience: string): Promise<string> {
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? '';
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (!requestToken)
    throw new UsageError('ACTIONS_ID_TOKEN_REQUEST_TOKEN is unset: grant the job `permissions: id-token: write`');
  const url = new URL(requestUrl);
  url.searchParams.set('audience', audience);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${requestToken}`, accept: 'application/json; api-version=2.0' },
    });
  } catch (error) {
    throw new ServiceError(
      `cannot reach GitHub's OIDC token endpoint: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as { value?: unknown };
  if (!response.ok || typeof body.value !== 'string')
    throw new ServiceError(`GitHub's OIDC token endpoint answered ${response.status} without a token`);
  maskInActionsLog(body.value, env);
  return body.value;
}

/** The job's OIDC token → POST /api/auth/oidc/token → a `vxo_` token, masked in the log. */
export async function exchangeOidc(
  api: ApiClient,
  env: NodeJS.ProcessEnv,
  teamId: string,
  policyId: string | undefined,
  audience: string,
): Promise<string> {
  const idToken = await gitHubIdToken(env, audience);
  const { body } = await ok(
    api.POST('/api/auth/oidc/token', { body: { token: idToken, teamId, ...(policyId ? { policyId } : {}) } }),
  );
  maskInActionsLog(body.data.token, env);
  return body.data.token;
}
