/**
 * Keys of a team and its people: the team item, members, service accounts and API keys in the team
 * partition; member logins, browser sessions, sign-in flows, key and token hashes in global
 * partitions; OIDC trust policies and session timeouts in partitions of their own under the team's
 * prefix; and what marks a key or an object as one team's.
 */
import { teamPk, type Key } from './partitions';

export const teamKeys = {
  team: (teamId: string): Key => ({ pk: teamPk(teamId), sk: 'TEAM' }),
  member: (teamId: string, memberId: string): Key => ({ pk: teamPk(teamId), sk: `MEMBER#${memberId}` }),
  memberPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'MEMBER#' }),
  memberEmailClaim: (teamId: string, email: string): Key => ({
    pk: teamPk(teamId),
    sk: `MEMBER_EMAIL#${email.toLowerCase()}`,
  }),
  serviceAccount: (teamId: string, serviceAccountId: string): Key => ({
    pk: teamPk(teamId),
    sk: `SERVICE_ACCOUNT#${serviceAccountId}`,
  }),
  apiKey: (teamId: string, keyId: string): Key => ({ pk: teamPk(teamId), sk: `APIKEY#${keyId}` }),
  apiKeyPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'APIKEY#' }),
  /**
   * Sparse gsi1 entry on an API key with an expiry, sorted by it: the periodic check finds the keys expiring within
   * 7 days without a Scan, and removes the entry when it has written their `apikey.expiring` event (once per key).
   */
  apiKeyExpiryIndex: (teamId: string, keyId: string, expiresAt: string) => ({
    gsi1pk: 'APIKEY_EXPIRY',
    gsi1sk: `${expiresAt}#${teamId}#${keyId}`,
  }),
  apiKeyExpiryPartition: () => ({ gsi1pk: 'APIKEY_EXPIRY' }),
  apiKeyNameClaim: (teamId: string, name: string): Key => ({ pk: teamPk(teamId), sk: `APIKEY_NAME#${name}` }),
  /**
   * Sign-in (docs/sign-in.md): a member's login entry, one per team the email belongs to, in a global
   * partition per verified email, written with the member. The callback queries it to find the member;
   * the authorizer reads it for each cookie request, so a removed member's or changed permission's
   * sessions end on the next request. Its own partition family, so the authorizer's grant stays off team data.
   */
  memberLogin: (email: string, teamId: string): Key => ({
    pk: `MEMBER_LOGIN#${email.toLowerCase()}`,
    sk: `TEAM#${teamId}`,
  }),
  memberLoginPrefix: (email: string) => ({ pk: `MEMBER_LOGIN#${email.toLowerCase()}`, skPrefix: 'TEAM#' }),
  /** A browser session, by SHA-256 of its id (the id itself is only in the cookie); TTL removes it. */
  session: (sha256Hex: string): Key => ({ pk: `SESSION#${sha256Hex}`, sk: 'SESSION' }),
  /** A sign-in in progress (state, nonce, PKCE verifier), by SHA-256 of the browser's flow cookie; single use, TTL removes it. */
  signInFlow: (sha256Hex: string): Key => ({ pk: `SIGNIN#${sha256Hex}`, sk: 'SIGNIN' }),
  /** Global lookup by SHA-256 of the key; read with a strongly consistent GetItem so revocation is immediate. */
  apiKeyHash: (sha256Hex: string): Key => ({ pk: `APIKEY_HASH#${sha256Hex}`, sk: 'APIKEY_HASH' }),

  /**
   * OIDC trust policies (docs/oidc.md): their own partition under the team's prefix, so the public
   * token exchange and the authorizer may read them (`TEAM#*#TRUST_POLICIES`) without a grant on
   * the rest of any team's data, and isolation stays in the key.
   */
  trustPolicy: (teamId: string, policyId: string): Key => ({
    pk: `${teamPk(teamId)}#TRUST_POLICIES`,
    sk: `POLICY#${policyId}`,
  }),
  /** The team's session timeouts (shared/service/identity/session-timeouts.ts): beside trust policies, readable by the authorizer alone. */
  sessionTimeouts: (teamId: string): Key => ({ pk: `${teamPk(teamId)}#SESSION_TIMEOUTS`, sk: 'SESSION_TIMEOUTS' }),
  trustPolicyPrefix: (teamId: string) => ({ pk: `${teamPk(teamId)}#TRUST_POLICIES`, skPrefix: 'POLICY#' }),
  /** Global lookup of a token issued by the OIDC exchange, by its SHA-256 (read like an API key hash; TTL removes it). */
  workloadTokenHash: (sha256Hex: string): Key => ({ pk: `OIDC_TOKEN#${sha256Hex}`, sk: 'OIDC_TOKEN' }),
  /** One item per exchanged CI token (`jti` single use), keyed by a hash of issuer and jti; TTL removes it after the token's expiry. */
  oidcJti: (sha256Hex: string): Key => ({ pk: `OIDC_JTI#${sha256Hex}`, sk: 'OIDC_JTI' }),

  /**
   * Everything one team owns: partition `TEAM#<t>` and every `TEAM#<t>#…`, objects under these
   * prefixes. The tenant guard (shared/service/tenant-guard.ts) and the tenant roles' policies (lib/) use it.
   */
  teamScope: (teamId: string) => ({
    partition: teamPk(teamId),
    /** Product files (SBOMs, inventories, VEX content) and pre-signed upload sessions. */
    filesPrefix: `teams/${teamId}/`,
    uploadsPrefix: `uploads/${teamId}/`,
    objectPrefixes: [`teams/${teamId}/`, `uploads/${teamId}/`],
  }),
  /** What marks a partition key or object key as some team's (each is followed by the team id). */
  teamOwned: () => ({ partitionPrefix: teamPk(''), objectPrefixes: ['teams/', 'uploads/'] }),
} as const;
