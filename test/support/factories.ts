/** Fresh data per test: each call makes its own team, so tests never share state. */
import { randomUUID } from 'node:crypto';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { Members, Teams } from '../../shared/service/identity/teams';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { SCOPES, type Scope } from '../../shared/service/identity/scopes';
import { client } from './http-client';

export async function createTeamWithKey(
  scopes: readonly Scope[] = SCOPES,
  options: { expiresInDays?: 30 | 90 | 180 | 365 } = {},
) {
  const team = await Teams.create(`Team ${randomUUID().slice(0, 8)}`, OPERATOR_ACTOR);
  const member = await Members.add(
    team.id,
    // Both permissions: a key acts with at most its owner's, and this one is made with every scope.
    {
      email: `admin-${randomUUID().slice(0, 8)}@example.test`,
      name: 'Admin',
      permissions: ['settings.manage', 'content.write'],
    },
    OPERATOR_ACTOR,
  );
  const key = await ApiKeys.create(
    team.id,
    { name: `key-${randomUUID().slice(0, 8)}`, scopes: [...scopes], ...options },
    { byMemberId: member.id, operator: OPERATOR_ACTOR },
  );
  return { teamId: team.id, memberId: member.id, key: key.key, keyId: key.id, keyName: key.name, api: client(key.key) };
}

export async function addKey(teamId: string, memberId: string, scopes: readonly Scope[]) {
  const key = await ApiKeys.create(
    teamId,
    { name: `key-${randomUUID().slice(0, 8)}`, scopes: [...scopes] },
    { byMemberId: memberId, operator: OPERATOR_ACTOR },
  );
  return { key: key.key, keyId: key.id, api: client(key.key) };
}

let slugCounter = 0;
/** Slugs allow lowercase letters and hyphens only, so uniqueness comes from letters. */
export function uniqueSlug(prefix = 'product'): string {
  slugCounter += 1;
  const letters = (randomUUID().replace(/[^a-f]/g, '') + 'abcdef').slice(0, 10);
  return `${prefix}-${letters}-${String.fromCharCode(97 + (slugCounter % 26))}`;
}
