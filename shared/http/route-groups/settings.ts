import * as z from 'zod';
import { anyJson, noContent, type RouteDefinition } from '../route-definition';
import * as disclosures from '../../schemas/disclosures';
import * as compliance from '../../schemas/compliance';
import * as trustPolicies from '../../schemas/trust-policies';
import * as settings from '../../schemas/settings';
import * as workspace from '../../schemas/workspace';

/** The `settings` group's routes (the function `functions/settings/handler.ts` serves them); the whole table is shared/http/routes.ts. */
export const settingsRoutes = [
  {
    operationId: 'getTeamSettings', method: 'GET', path: '/api/settings', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'Team settings: SLA policy and the distinct-approver rule', availability: 'implemented',
    responses: { 200: anyJson('Settings') },
  },
  {
    operationId: 'updateTeamSettings', method: 'PUT', path: '/api/settings', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Change team settings', availability: 'implemented',
    request: { body: compliance.teamSettingsBody }, responses: { 200: anyJson('Settings') },
  },
  {
    operationId: 'listPublisherKeys', method: 'GET', path: '/api/settings/publisher-keys', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s publisher keys (public halves), oldest first', availability: 'implemented',
    responses: { 200: { description: 'Publisher keys', schema: z.object({ data: z.array(disclosures.publisherKeyView) }) } },
  },
  {
    operationId: 'rotatePublisherKey', method: 'POST', path: '/api/settings/publisher-keys/rotate', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Add a new publisher key that signs from now on; older keys stay published so older signatures keep verifying', availability: 'implemented',
    responses: { 201: { description: 'The new key', schema: z.object({ data: disclosures.publisherKeyView }) } },
  },
  // OIDC workload identity federation (docs/oidc.md): trust policies are team settings; the exchange is public.
  {
    operationId: 'listTrustPolicies', method: 'GET', path: '/api/trust-policies', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s OIDC trust policies, oldest first', availability: 'implemented',
    responses: { 200: { description: 'Trust policies', schema: z.object({ data: z.array(trustPolicies.trustPolicySchema) }) } },
  },
  {
    operationId: 'createTrustPolicy', method: 'POST', path: '/api/trust-policies', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Trust CI tokens of an OIDC issuer (GitHub Actions by default) whose claims match; grants at most the caller\'s own scopes', availability: 'implemented',
    request: { body: trustPolicies.createTrustPolicyBody }, responses: { 201: { description: 'Created', schema: z.object({ data: trustPolicies.trustPolicySchema }) } },
  },
  {
    operationId: 'deleteTrustPolicy', method: 'DELETE', path: '/api/trust-policies/{policyId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Delete a trust policy; every token issued under it stops working at once', availability: 'implemented',
    request: { params: trustPolicies.trustPolicyIdParams }, responses: noContent,
  },
  {
    operationId: 'getMe', method: 'GET', path: '/api/me', group: 'settings', scope: 'authenticated', mutates: false,
    summary: 'Who the credential is: its team, caller (service account or member), scopes and key expiry', availability: 'implemented',
    responses: { 200: { description: 'The caller', schema: settings.meResponse } },
  },
  // The team workspace (docs/sign-in.md): members and API keys, only for holders of settings.manage (spec "Authentication" rule 7).
  {
    operationId: 'listMembers', method: 'GET', path: '/api/members', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s members, oldest first (service accounts are not members); only for holders of settings.manage', availability: 'implemented',
    responses: { 200: { description: 'Members', schema: workspace.memberListResponse } },
  },
  {
    operationId: 'inviteMember', method: 'POST', path: '/api/members', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Invite a member by email; they join at their first sign-in with an identity whose verified email matches', availability: 'implemented',
    request: { body: workspace.inviteMemberBody }, responses: { 201: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'updateMember', method: 'PUT', path: '/api/members/{memberId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Change a member\'s name or permissions; their sessions get the new scopes on their next request', availability: 'implemented',
    request: { params: workspace.memberIdParams, body: workspace.updateMemberBody }, responses: { 200: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'removeMember', method: 'DELETE', path: '/api/members/{memberId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Remove a member; their sessions end on their next request (409 for the last holder of settings.manage)', availability: 'implemented',
    request: { params: workspace.memberIdParams }, responses: noContent,
  },
  {
    operationId: 'listApiKeys', method: 'GET', path: '/api/keys', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s API keys, revoked ones included (never the value or its hash); only for holders of settings.manage', availability: 'implemented',
    responses: { 200: { description: 'API keys', schema: workspace.apiKeyListResponse } },
  },
  {
    operationId: 'createApiKey', method: 'POST', path: '/api/keys', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Create an API key with at most the caller\'s scopes; the value is in `key`, shown only in this answer', availability: 'implemented',
    request: { body: workspace.createApiKeyBody }, responses: { 201: { description: 'The key and its value', schema: workspace.createdApiKeyResponse } },
  },
  {
    operationId: 'revokeApiKey', method: 'DELETE', path: '/api/keys/{keyId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Revoke an API key, permanently and at once; its service account is deleted (spec "Authentication" rule 9)', availability: 'implemented',
    request: { params: workspace.keyIdParams }, responses: noContent,
  },
] as const satisfies readonly RouteDefinition<'settings'>[];
