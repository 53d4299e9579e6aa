/**
 * Provisioning of the per-team throttle on a deployed stack: each team is one API Gateway API key whose value is the team's
 * usage identifier (what the authorizer returns as `usageIdentifierKey`),
 * held by exactly one usage plan of the stage — the stack's default plan, or
 * the team's own plan when an operator set an override. Used only by the
 * admin CLI against a deployed stack; the local emulator reads the quota from
 * the team item instead.
 *
 * AWS calls (all `apigateway:*` on the account's API Gateway resources):
 * GET /usageplans/{id}, GET /usageplans, GET /apikeys, POST /apikeys,
 * POST /usageplans, PATCH /usageplans/{id}, DELETE /usageplans/{id},
 * POST /usageplans/{id}/keys, DELETE /usageplans/{id}/keys/{keyId}.
 */
import {
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanCommand,
  GetUsagePlansCommand,
  NotFoundException,
  UpdateUsagePlanCommand,
  type APIGatewayClient,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import type { ThrottleQuota } from './throttle-quota';
import { usageIdentifierOf } from './team-quota';

export function teamApiKeyName(teamId: string): string {
  return `vexdesk-team-${teamId}`;
}

export function teamUsagePlanName(teamId: string): string {
  return `vexdesk-team-${teamId}`;
}

async function findApiKeyId(client: APIGatewayClient, name: string): Promise<string | undefined> {
  let position: string | undefined;
  do {
    const page = await client.send(
      new GetApiKeysCommand({ nameQuery: name, includeValues: false, limit: 500, position }),
    );
    const match = page.items?.find((key) => key.name === name);
    if (match?.id) return match.id;
    position = page.position;
  } while (position);
  return undefined;
}

async function findUsagePlan(client: APIGatewayClient, name: string): Promise<UsagePlan | undefined> {
  let position: string | undefined;
  do {
    const page = await client.send(new GetUsagePlansCommand({ limit: 500, position }));
    const match = page.items?.find((plan) => plan.name === name);
    if (match) return match;
    position = page.position;
  } while (position);
  return undefined;
}

/** The team's API key, created with its usage identifier as value if missing. */
async function ensureApiKey(client: APIGatewayClient, teamId: string): Promise<string> {
  const name = teamApiKeyName(teamId);
  const existing = await findApiKeyId(client, name);
  if (existing) return existing;
  const created = await client.send(
    new CreateApiKeyCommand({
      name,
      value: usageIdentifierOf(teamId),
      enabled: true,
      description:
        'Vexdesk team usage-plan key: named by the Lambda authorizer (apiKeySource AUTHORIZER), never sent by clients.',
    }),
  );
  if (!created.id) throw new Error(`API Gateway returned no id for API key ${name}`);
  return created.id;
}

async function ensureTeamPlan(
  client: APIGatewayClient,
  teamId: string,
  quota: ThrottleQuota,
  defaultPlan: UsagePlan,
  known: UsagePlan | undefined,
): Promise<string> {
  const name = teamUsagePlanName(teamId);
  const plan = known ?? (await findUsagePlan(client, name));
  if (!plan?.id) {
    const created = await client.send(
      new CreateUsagePlanCommand({
        name,
        description: `Vexdesk request quota override of team ${teamId}`,
        apiStages: (defaultPlan.apiStages ?? []).map(({ apiId, stage }) => ({ apiId, stage })),
        throttle: { rateLimit: quota.rateLimit, burstLimit: quota.burstLimit },
      }),
    );
    if (!created.id) throw new Error(`API Gateway returned no id for usage plan ${name}`);
    return created.id;
  }
  if (plan.throttle?.rateLimit !== quota.rateLimit || plan.throttle.burstLimit !== quota.burstLimit) {
    await client.send(
      new UpdateUsagePlanCommand({
        usagePlanId: plan.id,
        patchOperations: [
          { op: 'replace', path: '/throttle/rateLimit', value: String(quota.rateLimit) },
          { op: 'replace', path: '/throttle/burstLimit', value: String(quota.burstLimit) },
        ],
      }),
    );
  }
  return plan.id;
}

/** A team's own plan, once its key has left it: detach the stages (required before deletion), then delete. */
async function deleteTeamPlan(client: APIGatewayClient, plan: UsagePlan): Promise<void> {
  if (!plan.id) return;
  for (const stage of plan.apiStages ?? []) {
    await client.send(
      new UpdateUsagePlanCommand({
        usagePlanId: plan.id,
        patchOperations: [{ op: 'remove', path: '/apiStages', value: `${stage.apiId}:${stage.stage}` }],
      }),
    );
  }
  await client.send(new DeleteUsagePlanCommand({ usagePlanId: plan.id }));
}

/**
 * Makes API Gateway match the team's quota: the key exists and sits in the
 * default plan (override `null`) or in the team's own plan with the override's
 * throttle. Idempotent, so it also repairs a team whose provisioning failed.
 * A key may belong to only one plan per stage, so a move removes it from the
 * old plan first: for a moment (seconds) the team's requests get 403.
 */
export async function applyTeamQuota(
  client: APIGatewayClient,
  defaultPlanId: string,
  teamId: string,
  override: ThrottleQuota | null,
): Promise<void> {
  const defaultPlan = await client.send(new GetUsagePlanCommand({ usagePlanId: defaultPlanId }));
  const keyId = await ensureApiKey(client, teamId);
  const holding = (await client.send(new GetUsagePlansCommand({ keyId }))).items ?? [];
  const ownName = teamUsagePlanName(teamId);
  const target = override
    ? await ensureTeamPlan(
        client,
        teamId,
        override,
        defaultPlan,
        holding.find((plan) => plan.name === ownName),
      )
    : defaultPlanId;
  for (const plan of holding) {
    if (!plan.id || plan.id === target) continue;
    try {
      await client.send(new DeleteUsagePlanKeyCommand({ usagePlanId: plan.id, keyId }));
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw error;
    }
    if (plan.name === ownName) await deleteTeamPlan(client, plan);
  }
  if (!holding.some((plan) => plan.id === target)) {
    try {
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId: target, keyId, keyType: 'API_KEY' }));
    } catch (error) {
      // Already there (a concurrent run): the desired state.
      if (!(error instanceof ConflictException)) throw error;
    }
  }
}
