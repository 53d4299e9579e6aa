/**
 * Browser sessions (docs/sign-in.md "Sessions"): the data module of
 * session items and the rules the authorizer applies to a session cookie.
 *
 * - The id is 32 random bytes (base64url) that only the cookie holds; the table keeps its SHA-256.
 * - Idle timeout (no request for that long) and absolute timeout (from sign-in): the team's setting
 *   (shared/service/identity/session-timeouts.ts, defaults 8 h and 7 days), read on every request, so a shorter
 *   value applies to running sessions at once. A longer absolute timeout applies from the next sign-in:
 *   a session's own expiry (and its TTL) is fixed when it starts.
 * - Scopes are not stored: each request derives them from the member's current login entry
 *   (shared/service/identity/member-scopes.ts), so removing a member or a permission acts on the next request.
 * - The CSRF token is derived from the id (SHA-256 of a label and the id), so it is bound to
 *   the session, needs no storage, and does not reveal the id.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { keys } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import { getItem, transactWrite, TransactionFailedError, tx, type Item, type TransactItem } from '../data/table-client';
import type { Scope } from './scopes';
import { scopesOfPermissions } from './member-scopes';
import { SessionTimeoutSettings, type SessionTimeouts } from './session-timeouts';
import { Members, type MemberLogin } from './teams';

const TTL = tableDefinition.timeToLiveAttribute;

/** lastSeenAt is written at most this often: a write per request would double the authorizer's cost. */
const TOUCH_INTERVAL_MS = 60_000;
const SESSION_ID_PATTERN = /^[\w-]{43}$/;

export interface SessionRecord {
  /** Public id of the session (audit entries name it); not the secret. */
  id: string;
  teamId: string;
  memberId: string;
  email: string;
  name: string;
  createdAt: string;
  lastSeenAt: string;
  absoluteExpiresAt: string;
}

export interface AuthenticatedSession {
  session: SessionRecord;
  scopes: Scope[];
  csrfToken: string;
}

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

export function csrfTokenOf(sessionId: string): string {
  return createHash('sha256').update(`vexdesk-csrf\0${sessionId}`, 'utf8').digest('base64url');
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfTokenMatches(sessionId: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(sessionId));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function toRecord(item: Item): SessionRecord {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    memberId: String(item.memberId),
    email: String(item.email),
    name: String(item.name),
    createdAt: String(item.createdAt),
    lastSeenAt: String(item.lastSeenAt),
    absoluteExpiresAt: String(item.absoluteExpiresAt),
  };
}

const MINUTE_MS = 60_000;

/** Why a session is no longer valid at `now` under its team's current timeouts, or undefined while it is. */
export function sessionExpiry(
  session: Pick<SessionRecord, 'createdAt' | 'lastSeenAt' | 'absoluteExpiresAt'>,
  timeouts: SessionTimeouts,
  now: Date,
): 'absolute' | 'idle' | undefined {
  const absoluteEnd = Math.min(
    Date.parse(session.absoluteExpiresAt),
    Date.parse(session.createdAt) + timeouts.absoluteMinutes * MINUTE_MS,
  );
  if (absoluteEnd <= now.getTime()) return 'absolute';
  if (Date.parse(session.lastSeenAt) + timeouts.idleMinutes * MINUTE_MS <= now.getTime()) return 'idle';
  return undefined;
}

export const Sessions = {
  /**
   * A new session for a member who just signed in: always a fresh id (no fixation), stored as its hash,
   * with the audit entry in the same transaction.
   */
  async create(
    login: MemberLogin,
    audit: (session: SessionRecord, timeouts: SessionTimeouts) => TransactItem,
    now = new Date(),
  ): Promise<{ sessionId: string; session: SessionRecord }> {
    const sessionId = randomBytes(32).toString('base64url');
    const timeouts = await SessionTimeoutSettings.get(login.teamId);
    const session: SessionRecord = {
      id: randomUUID(),
      teamId: login.teamId,
      memberId: login.memberId,
      email: login.email,
      name: login.name,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      absoluteExpiresAt: new Date(now.getTime() + timeouts.absoluteMinutes * MINUTE_MS).toISOString(),
    };
    await transactWrite([
      tx.create({
        ...keys.session(hashSessionId(sessionId)),
        entity: 'Session',
        ...session,
        [TTL]: Math.ceil(Date.parse(session.absoluteExpiresAt) / 1000),
      }),
      audit(session, timeouts),
    ]);
    return { sessionId, session };
  },

  /** The authorizer's check of a session cookie; undefined for an unknown, expired or orphaned session. */
  async authenticate(sessionId: string, now = new Date()): Promise<AuthenticatedSession | undefined> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return undefined;
    const sessionKey = keys.session(hashSessionId(sessionId));
    const item = await getItem(sessionKey);
    if (!item) return undefined;
    const session = toRecord(item);
    // Both at once: the member's current entry and the team's current timeouts.
    const [login, timeouts] = await Promise.all([
      Members.loginOf(session.email, session.teamId),
      SessionTimeoutSettings.get(session.teamId),
    ]);
    if (sessionExpiry(session, timeouts, now)) return undefined;
    // The member's entry gone (removed) or re-invited under a new id means the session is over.
    if (!login || login.memberId !== session.memberId) return undefined;
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_INTERVAL_MS) {
      try {
        await transactWrite([
          tx.update(
            sessionKey,
            'SET #lastSeenAt = :now',
            { '#lastSeenAt': 'lastSeenAt' },
            { ':now': now.toISOString() },
            'attribute_exists(pk)',
          ),
        ]);
      } catch (error) {
        // Signed out in between: this request still had a valid session when it was read.
        if (!(error instanceof TransactionFailedError)) throw error;
      }
    }
    return { session, scopes: scopesOfPermissions(login.permissions), csrfToken: csrfTokenOf(sessionId) };
  },

  async find(sessionId: string): Promise<SessionRecord | undefined> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return undefined;
    const item = await getItem(keys.session(hashSessionId(sessionId)));
    return item ? toRecord(item) : undefined;
  },

  /** Server-side sign-out: the item goes, so the cookie is worthless even if a copy survives. */
  async revoke(sessionId: string, audit: (session: SessionRecord) => TransactItem): Promise<SessionRecord | undefined> {
    const session = await Sessions.find(sessionId);
    if (!session) return undefined;
    try {
      await transactWrite([tx.delete(keys.session(hashSessionId(sessionId)), 'attribute_exists(pk)'), audit(session)]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return undefined;
      throw error;
    }
    return session;
  },
};
