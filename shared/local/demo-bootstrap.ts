/**
 * First-start bootstrap (the local-runtime contract other tools rely on, README.md): a demo team,
 * a member holding settings.manage, and an all-scopes API key written once to
 * `$DATA_DIR/bootstrap.json` as `{ teamId, memberId, apiKey, login: { email, password } }`;
 * `login` is the demo admin's account at the embedded OpenID provider (docs/sign-in.md).
 * A data directory bootstrapped before sign-in existed gets its `login` on the next start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiKeys } from '../service/identity/api-keys';
import { Members, Teams } from '../service/identity/teams';
import { OPERATOR_ACTOR } from '../service/identity/actor';
import { SCOPES } from '../service/identity/scopes';

export interface BootstrapRecord {
  teamId: string;
  memberId: string;
  apiKey: string;
  login?: { email: string; password: string };
}

export const DEMO_ADMIN = { email: 'demo@vexdesk.local', name: 'Demo Admin' } as const;

function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** `loginCreated`: the dev account's password is new on this start (print it once, like the key). */
export async function ensureDemoTeam(
  dataDir: string,
): Promise<{ record: BootstrapRecord; created: boolean; loginCreated: boolean }> {
  const file = join(dataDir, 'bootstrap.json');
  if (existsSync(file)) {
    const record = JSON.parse(await readFile(file, 'utf8')) as BootstrapRecord;
    if (record.login) return { record, created: false, loginCreated: false };
    // Bootstrapped before sign-in: the demo admin gets the day-to-day permission and a login entry (written by update).
    await Members.update(
      record.teamId,
      record.memberId,
      { permissions: ['settings.manage', 'content.write'] },
      OPERATOR_ACTOR,
    );
    const upgraded = { ...record, login: { email: DEMO_ADMIN.email, password: newPassword() } };
    await writeFile(file, `${JSON.stringify(upgraded, null, 2)}\n`, { mode: 0o600 });
    return { record: upgraded, created: false, loginCreated: true };
  }
  const team = await Teams.create('Demo team', OPERATOR_ACTOR);
  const member = await Members.add(
    team.id,
    { ...DEMO_ADMIN, permissions: ['settings.manage', 'content.write'] },
    OPERATOR_ACTOR,
  );
  const key = await ApiKeys.create(
    team.id,
    { name: 'demo', scopes: [...SCOPES] },
    { byMemberId: member.id, operator: OPERATOR_ACTOR },
  );
  const record = {
    teamId: team.id,
    memberId: member.id,
    apiKey: key.key,
    login: { email: DEMO_ADMIN.email, password: newPassword() },
  };
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return { record, created: true, loginCreated: true };
}
