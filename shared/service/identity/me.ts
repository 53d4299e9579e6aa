/**
 * `GET /api/me`: the credential's team, caller, scopes and key, from the authorizer's context plus two
 * reads (the team's name and the key's expiry are not in the context: API Gateway context values are
 * flat strings, and the authorizer reads no more than it needs). The scopes are what the credential may
 * use now (a key's capped by its owner's current permissions).
 */
import { NotFoundError } from '../errors';
import type { MeView } from '../schemas/settings';
import type { Caller } from './actor';
import { ApiKeys } from './api-keys';
import { Teams } from './teams';

export const Me = {
  async describe(caller: Caller): Promise<MeView> {
    if (caller.actor.kind === 'workload') {
      // An OIDC-issued token: its expiry came with the authorizer's context, there is no key item.
      const team = await Teams.get(caller.teamId);
      return {
        team: { id: team.id, name: team.name },
        caller: { id: caller.actor.id, name: caller.actor.name, type: 'workload' },
        scopes: [...caller.scopes].sort(),
        key: { id: caller.keyId, name: caller.actor.name, expiresAt: caller.credentialExpiresAt ?? null },
      };
    }
    if (caller.actor.kind === 'member') {
      // A browser session: no key; the console reads the CSRF token for its state-changing requests here.
      const team = await Teams.get(caller.teamId);
      return {
        team: { id: team.id, name: team.name },
        caller: { id: caller.actor.id, name: caller.actor.name, type: 'member' },
        scopes: [...caller.scopes].sort(),
        key: { id: caller.keyId, name: 'browser session', expiresAt: caller.credentialExpiresAt ?? null },
        session: { csrfToken: caller.csrfToken ?? '', email: caller.actor.email ?? '' },
      };
    }
    const [team, key] = await Promise.all([Teams.get(caller.teamId), ApiKeys.find(caller.teamId, caller.keyId)]);
    // The authorizer found the key a moment ago; gone now means revoked in between.
    if (!key) throw new NotFoundError('API key');
    return {
      team: { id: team.id, name: team.name },
      caller: { id: caller.actor.id, name: caller.actor.name, type: 'service_account' },
      scopes: [...caller.scopes].sort(),
      key: { id: key.id, name: key.name, expiresAt: key.expiresAt },
    };
  },
};
