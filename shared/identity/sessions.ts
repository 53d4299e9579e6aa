/**
 * Browser sessions (BRIEF decision 10, docs/sign-in.md "Sessions"): the data module of
 * session items and the rules the authorizer applies to a session cookie.
 *
 * - The id is 32 random bytes (base64url) that only the cookie holds; the table keeps its SHA-256.
 * - Idle timeout (no request for that long) and absolute timeout (from sign-in), defaults 8 h and 7 days.
 * - Scopes are not stored: each request derives them from the member's current login entry
 *   (shared/identity/member-scopes.ts), so removing a member or a permission acts on the next request.
 * - The CSRF token is derived from the id (SHA-256 of a label and the id), so it is bound to
 *   the session, needs no storage, and does not reveal the id.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { keys } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import { getItem, transactWrite, TransactionFailedError, tx, type Item, type TransactItem } from '../data/table-client';
import type { Scope } from '../http/scopes';
import { scopesOfPermissions } from './member-scopes';
import { Members, type MemberLogin } from './teams';

const TTL = tableDefinition.timeToLiveAttribute;

export const DEFAULT_IDLE_TIMEOUT_SECONDS = 8 * 3600;
export const DEFAULT_ABSOLUTE_TIMEOUT_SECONDS = 7 * 86_400;
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
  idleTimeoutSeconds: number;
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
    id: String(item.id), teamId: String(item.teamId), memberId: String(item.memberId), email: String(item.email), name: String(item.name),
    createdAt: String(item.createdAt), lastSeenAt: String(item.lastSeenAt), absoluteExpiresAt: String(item.absoluteExpiresAt),
    idleTimeoutSeconds: Number(item.idleTimeoutSeconds),
  };
}

/** Why a session is no longer valid at `now`, or undefined while it is. */
export function sessionExpiry(session: Pick<SessionRecord, 'lastSeenAt' | 'absoluteExpiresAt' | 'idleTimeoutSeconds'>, now: Date): 'absolute' | 'idle' | undefined {
  if (Date.parse(session.absoluteExpiresAt) <= now.getTime()) return 'absolute';
  if (Date.parse(session.lastSeenAt) + session.idleTimeoutSeconds * 1000 <= now.getTime()) return 'idle';
  return undefined;
}

export const Sessions = {
  /**
   * A new session for a member who just signed in: always a fresh id (no fixation), stored as its hash,
   * with the audit entry in the same transaction.
   */
  async create(login: MemberLogin, audit: (session: SessionRecord) => TransactItem, options: { idleTimeoutSeconds?: number; absoluteTimeoutSeconds?: number; now?: Date } = {}): Promise<{ sessionId: string; session: SessionRecord }> {
    const now = options.now ?? new Date();
    const sessionId = randomBytes(32).toString('base64url');
    const absolute = options.absoluteTimeoutSeconds ?? DEFAULT_ABSOLUTE_TIMEOUT_SECONDS;
    const session: SessionRecord = {
      id: randomUUID(), teamId: login.teamId, memberId: login.memberId, email: login.email, name: login.name,
      createdAt: now.toISOString(), lastSeenAt: now.toISOString(), absoluteExpiresAt: new Date(now.getTime() + absolute * 1000).toISOString(),
      idleTimeoutSeconds: options.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS,
    };
    await transactWrite([
      tx.create({ ...keys.session(hashSessionId(sessionId)), entity: 'Session', ...session, [TTL]: Math.ceil(Date.parse(session.absoluteExpiresAt) / 1000) }),
      audit(session),
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
    if (sessionExpiry(session, now)) return undefined;
    // The member's current entry: gone (removed) or re-invited under a new id means the session is over.
    const login = await Members.loginOf(session.email, session.teamId);
    if (!login || login.memberId !== session.memberId) return undefined;
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_INTERVAL_MS) {
      try {
        await transactWrite([tx.update(sessionKey, 'SET #lastSeenAt = :now', { '#lastSeenAt': 'lastSeenAt' }, { ':now': now.toISOString() }, 'attribute_exists(pk)')]);
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
