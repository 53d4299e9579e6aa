import { createGroupHandler } from '../../shared/http/group-handler';
import { Me } from '../../shared/identity/me';
import { TeamSettingsService } from '../../shared/identity/team-settings';

export const handler = createGroupHandler('settings', {
  getTeamSettings: async ({ caller }) => ({ status: 200, body: { data: await TeamSettingsService.get(caller.teamId) } }),
  updateTeamSettings: async ({ caller, body }) => ({ status: 200, body: { data: await TeamSettingsService.update(caller.teamId, caller.actor, body) } }),
  getMe: async ({ caller }) => ({ status: 200, body: { data: await Me.describe(caller) } }),
});
