import { createGroupHandler } from '../../shared/service/http/group-handler';
import { settingsRoutes } from '../../shared/service/http/route-groups/settings';
import { Me } from '../../shared/service/identity/me';
import { TeamSettingsService } from '../../shared/service/identity/team-settings';
import { TrustPolicies } from '../../shared/service/identity/trust-policies';
import { PublisherKeyRotation } from '../../shared/service/disclosures/publisher-key-rotation';
import { Workspace } from '../../shared/service/identity/workspace';

export const handler = createGroupHandler(settingsRoutes, {
  getTeamSettings: async ({ caller }) => ({
    status: 200,
    body: { data: await TeamSettingsService.describe(caller.teamId) },
  }),
  updateTeamSettings: async ({ caller, body }) => ({
    status: 200,
    body: { data: await TeamSettingsService.update(caller.teamId, caller.actor, body) },
  }),
  listTrustPolicies: async ({ caller }) => ({ status: 200, body: { data: await TrustPolicies.list(caller.teamId) } }),
  createTrustPolicy: async ({ caller, body }) => ({
    status: 201,
    body: { data: await TrustPolicies.create(caller.teamId, body, { caller }) },
  }),
  deleteTrustPolicy: async ({ caller, params }) => {
    await TrustPolicies.delete(caller.teamId, params.policyId, { caller });
    return { status: 204 };
  },
  listPublisherKeys: async ({ caller }) => ({
    status: 200,
    body: { data: await PublisherKeyRotation.list(caller.teamId) },
  }),
  rotatePublisherKey: async ({ caller }) => ({
    status: 201,
    body: { data: await PublisherKeyRotation.rotate(caller.teamId, caller.actor) },
  }),
  listMembers: async ({ caller }) => ({ status: 200, body: { data: await Workspace.listMembers(caller) } }),
  inviteMember: async ({ caller, body }) => ({
    status: 201,
    body: { data: await Workspace.inviteMember(caller, body) },
  }),
  updateMember: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: await Workspace.updateMember(caller, params.memberId, body) },
  }),
  removeMember: async ({ caller, params, query }) => {
    await Workspace.removeMember(caller, params.memberId, query);
    return { status: 204 };
  },
  listApiKeys: async ({ caller }) => ({ status: 200, body: { data: await Workspace.listKeys(caller) } }),
  createApiKey: async ({ caller, body }) => ({ status: 201, body: { data: await Workspace.createKey(caller, body) } }),
  revokeApiKey: async ({ caller, params }) => {
    await Workspace.revokeKey(caller, params.keyId);
    return { status: 204 };
  },
  getMe: async ({ caller }) => ({ status: 200, body: { data: await Me.describe(caller) } }),
});
