/** `vexdesk whoami`: GET /api/me — the credential's team, caller, scopes and expiry. */
import { ok, type ApiClient } from '../api-client';
import { pairs, type Output } from '../output';

export async function whoami(api: ApiClient, out: Output): Promise<void> {
  const { body } = await ok(api.GET('/api/me'));
  const me = body.data;
  out.result(
    pairs([
      ['team', `${me.team.name} (${me.team.id})`],
      ['caller', `${me.caller.name} (${me.caller.type} ${me.caller.id})`],
      ['credential', `${me.key.name} (${me.key.id})`],
      ['expires', me.key.expiresAt ?? 'never'],
      ['scopes', me.scopes.join(', ')],
    ]),
    me,
  );
}
