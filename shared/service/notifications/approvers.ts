/**
 * The recipients of an e-mail channel set to `approvers` (docs/notifications.md "E-mail to approvers"), resolved
 * when a message is sent, so a member added or given the permission since the channel was made is included: the
 * team's members whose permissions let them approve VEX documents, less the submitter of a `vex.submitted`
 * document when the team requires a distinct approver (they may not approve it).
 */
import { scopesOfPermissions } from '../identity/member-scopes';
import type { Scope } from '../identity/scopes';
import { TeamSettingsService } from '../identity/team-settings';
import { Members } from '../identity/teams';
import type { NotificationMessage } from './messages';

/** The scope of POST /api/vex/{vexId}/approve. */
const APPROVE_SCOPE: Scope = 'vex:write';

/** The person who submitted the document of a `vex.submitted` message, as the event records it. */
function submitterOf(message: NotificationMessage): string | undefined {
  if (message.type !== 'vex.submitted') return undefined;
  const data = message.data.data as Record<string, unknown> | undefined;
  return typeof data?.submitted_by === 'string' ? data.submitted_by : undefined;
}

export async function approverAddresses(teamId: string, message: NotificationMessage): Promise<string[]> {
  const submitter = submitterOf(message);
  const [members, excluded] = await Promise.all([
    Members.list(teamId),
    submitter !== undefined
      ? TeamSettingsService.get(teamId).then((settings) => (settings.requireDistinctApprover ? submitter : undefined))
      : undefined,
  ]);
  const addresses = members
    .filter((member) => member.id !== excluded && scopesOfPermissions(member.permissions).includes(APPROVE_SCOPE))
    .map((member) => member.email.toLowerCase());
  return [...new Set(addresses)].sort();
}
