import * as z from 'zod';
import { defineGroup, noContent } from '../route-definition';
import * as disclosures from '../../schemas/disclosures';
import * as compliance from '../../schemas/compliance';
import * as trustPolicies from '../../schemas/trust-policies';
import * as settings from '../../schemas/settings';
import * as workspace from '../../schemas/workspace';

/** The `settings` group's routes (the function `functions/settings/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const settingsRoutes = defineGroup('settings', [
  {
    operationId: 'getTeamSettings',
    method: 'GET',
    path: '/api/settings',
    scope: 'settings:read',
    mutates: false,
    summary: 'Team settings: SLA policy and the distinct-approver rule',
    responses: { 200: { description: 'Settings', schema: compliance.teamSettingsResponse } },
  },
  {
    operationId: 'updateTeamSettings',
    method: 'PUT',
    path: '/api/settings',
    scope: 'settings:write',
    mutates: true,
    summary: 'Change team settings',
    request: { body: compliance.teamSettingsBody },
    responses: { 200: { description: 'Settings', schema: compliance.teamSettingsResponse } },
  },
  {
    operationId: 'listPublisherKeys',
    method: 'GET',
    path: '/api/settings/publisher-keys',
    scope: 'settings:read',
    mutates: false,
    summary: "The team's publisher keys (public halves), oldest first",
    responses: {
      200: { description: 'Publisher keys', schema: disclosures.publisherKeyListResponse },
    },
  },
  {
    operationId: 'rotatePublisherKey',
    method: 'POST',
    path: '/api/settings/publisher-keys/rotate',
    scope: 'settings:write',
    mutates: true,
    summary:
      'Add a new publisher key that signs from now on; older keys stay published so older signatures keep verifying',
    responses: { 201: { description: 'The new key', schema: z.object({ data: disclosures.publisherKeySchema }) } },
  },
  // OIDC workload identity federation (docs/oidc.md): trust policies are team settings; the exchange is public.
  {
    operationId: 'listTrustPolicies',
    method: 'GET',
    path: '/api/trust-policies',
    scope: 'settings:read',
    mutates: false,
    summary: "The team's OIDC trust policies, oldest first",
    responses: {
      200: { description: 'Trust policies', schema: z.object({ data: z.array(trustPolicies.trustPolicySchema) }) },
    },
  },
  {
    operationId: 'createTrustPolicy',
    method: 'POST',
    path: '/api/trust-policies',
    scope: 'settings:write',
    mutates: true,
    summary:
      "Trust CI tokens of an OIDC issuer (GitHub Actions by default) whose claims match; grants at most the caller's own scopes",
    request: { body: trustPolicies.createTrustPolicyBody },
    responses: { 201: { description: 'Created', schema: z.object({ data: trustPolicies.trustPolicySchema }) } },
  },
  {
    operationId: 'deleteTrustPolicy',
    method: 'DELETE',
    path: '/api/trust-policies/{policyId}',
    scope: 'settings:write',
    mutates: true,
    summary: 'Delete a trust policy; every token issued under it stops working at once',
    request: { params: trustPolicies.trustPolicyIdParams },
    responses: noContent,
  },
  {
    operationId: 'getMe',
    method: 'GET',
    path: '/api/me',
    scope: 'authenticated',
    mutates: false,
    summary: 'Who the credential is: its team, caller (service account or member), scopes and key expiry',
    responses: { 200: { description: 'The caller', schema: settings.meResponse } },
  },
  // The team workspace (docs/sign-in.md): members and API keys, only for holders of settings.manage (spec "Authentication" rule 7).
  {
    operationId: 'listMembers',
    method: 'GET',
    path: '/api/members',
    scope: 'settings:read',
    mutates: false,
    summary: "The team's members, oldest first (service accounts are not members); only for holders of settings.manage",
    responses: { 200: { description: 'Members', schema: workspace.memberListResponse } },
  },
  {
    operationId: 'inviteMember',
    method: 'POST',
    path: '/api/members',
    scope: 'settings:write',
    mutates: true,
    summary: 'Invite a member by email; they join at their first sign-in with an identity whose verified email matches',
    request: { body: workspace.inviteMemberBody },
    responses: { 201: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'updateMember',
    method: 'PUT',
    path: '/api/members/{memberId}',
    scope: 'settings:write',
    mutates: true,
    summary: "Change a member's name or permissions; their sessions get the new scopes on their next request",
    request: { params: workspace.memberIdParams, body: workspace.updateMemberBody },
    responses: { 200: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'removeMember',
    method: 'DELETE',
    path: '/api/members/{memberId}',
    scope: 'settings:write',
    mutates: true,
    summary: 'Remove a member; their sessions end on their next request (409 for the last holder of settings.manage)',
    request: { params: workspace.memberIdParams },
    responses: noContent,
  },
  {
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/api/keys',
    scope: 'settings:read',
    mutates: false,
    summary:
      "The team's API keys, revoked ones included (never the value or its hash); only for holders of settings.manage",
    responses: { 200: { description: 'API keys', schema: workspace.apiKeyListResponse } },
  },
  {
    operationId: 'createApiKey',
    method: 'POST',
    path: '/api/keys',
    scope: 'settings:write',
    mutates: true,
    summary: "Create an API key with at most the caller's scopes; the value is in `key`, shown only in this answer",
    request: { body: workspace.createApiKeyBody },
    responses: { 201: { description: 'The key and its value', schema: workspace.createdApiKeyResponse } },
  },
  {
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: '/api/keys/{keyId}',
    scope: 'settings:write',
    mutates: true,
    summary:
      'Revoke an API key, permanently and at once; its service account is deleted (spec "Authentication" rule 9)',
    request: { params: workspace.keyIdParams },
    responses: noContent,
  },
]);
