/**
 * A team's browser-session timeouts (docs/sign-in.md "Sessions"): idle (no request for
 * that long) and absolute (from sign-in), defaults 8 hours and 7 days, changed in the team settings.
 * The authorizer reads them on every cookie request, so a shorter value ends sessions at once. They live
 * in their own item under the team's prefix (`TEAM#<id>#SESSION_TIMEOUTS`), like trust policies, so the
 * authorizer's grant reaches them and nothing else of the team.
 */
import { keys } from '../data/keys';
import { getItem, tx, type TransactItem } from '../data/table-client';
import { ValidationError } from '../errors';
import { DEFAULT_SESSION_TIMEOUTS, type SessionTimeouts } from './session-timeout-rules';

export { DEFAULT_SESSION_TIMEOUTS, type SessionTimeouts };

function resolve(item: Record<string, unknown> | undefined): SessionTimeouts {
  return {
    idleMinutes: typeof item?.idleMinutes === 'number' ? item.idleMinutes : DEFAULT_SESSION_TIMEOUTS.idleMinutes,
    absoluteMinutes:
      typeof item?.absoluteMinutes === 'number' ? item.absoluteMinutes : DEFAULT_SESSION_TIMEOUTS.absoluteMinutes,
  };
}

export const SessionTimeoutSettings = {
  async get(teamId: string): Promise<SessionTimeouts> {
    return resolve(await getItem(keys.sessionTimeouts(teamId)));
  },

  /** The timeouts after a patch; an idle timeout longer than the absolute one could never apply (422). */
  merge(current: SessionTimeouts, patch: Partial<SessionTimeouts> | undefined): SessionTimeouts {
    const next = { ...current, ...patch };
    if (next.idleMinutes > next.absoluteMinutes) {
      throw new ValidationError('Invalid session timeouts: the idle timeout cannot exceed the absolute timeout', [
        {
          path: 'sessionTimeouts.idleMinutes',
          message: `The idle timeout (${next.idleMinutes} min) cannot exceed the absolute timeout (${next.absoluteMinutes} min)`,
        },
      ]);
    }
    return next;
  },

  put(teamId: string, timeouts: SessionTimeouts): TransactItem {
    return tx.put({ ...keys.sessionTimeouts(teamId), entity: 'SessionTimeouts', teamId, ...timeouts });
  },
};
