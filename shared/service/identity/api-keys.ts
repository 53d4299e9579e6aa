/**
 * API keys (spec "API key"): `vxd_` + 64 lowercase hex,
 * shown once, only the SHA-256 stored; each key is backed by a service account
 * named `api_<key name>`. Revocation is permanent and immediate: the authorizer
 * reads the hash item with a strongly consistent read on every request. A key
 * acts for its owner (shared/service/identity/credential-owner.ts): with at most
 * its own scopes and its owner's current permissions.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { keys } from '../data/keys';
import { getItem, queryAll, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import { auditPut } from '../audit/audit-log';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { SCOPES, type Scope } from './scopes';
import { serviceAccountName } from './actor';
import { capScopes, ownerScopesNow, parseOwner, type CredentialOwner } from './credential-owner';
import { assertGrantable, authorizeManager, type Manager, type ManagerRequest } from './grants';
import { Teams } from './teams';
import { EXPIRY_CHOICES_DAYS } from './permission-names';

export { EXPIRY_CHOICES_DAYS };

export const API_KEY_PATTERN = /^vxd_[0-9a-f]{64}$/;

export const createApiKeyInput = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, underscore and hyphen only'),
  scopes: z.array(z.enum(SCOPES)).min(1),
  expiresInDays: z
    .union(
      EXPIRY_CHOICES_DAYS.map((days) => z.literal(days)) as [
        z.ZodLiteral<30>,
        z.ZodLiteral<90>,
        z.ZodLiteral<180>,
        z.ZodLiteral<365>,
      ],
    )
    .optional(),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeyInput>;

export interface ApiKeyRecord {
  id: string;
  teamId: string;
  name: string;
  scopes: Scope[];
  serviceAccountId: string;
  createdAt: string;
  createdBy: string;
  /** Null only on a key made before owners were recorded, until the migration gives it one. */
  owner: CredentialOwner | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface AuthenticatedKey {
  teamId: string;
  keyId: string;
  serviceAccountId: string;
  name: string;
  /** The key's scopes its owner holds now. */
  scopes: Scope[];
  /** The person the key acts for (its owner's id). */
  personId: string;
}

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

function toRecord(item: Item): ApiKeyRecord {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    name: String(item.name),
    scopes: item.scopes as Scope[],
    serviceAccountId: String(item.serviceAccountId),
    createdAt: String(item.createdAt),
    createdBy: String(item.createdBy),
    owner: parseOwner(item.owner) ?? null,
    expiresAt: (item.expiresAt as string | null | undefined) ?? null,
    revokedAt: (item.revokedAt as string | null | undefined) ?? null,
  };
}

export const ApiKeys = {
  /**
   * Creates a key; the raw value is returned here once and never stored. Spec "Authentication" rule 7: only a
   * manager creates keys, granting at most what they hold; the key belongs to the manager's owner (a key made by
   * a key acts for the same person).
   */
  async create(teamId: string, rawInput: unknown, request: ManagerRequest): Promise<ApiKeyRecord & { key: string }> {
    const parsed = createApiKeyInput.safeParse(rawInput);
    if (!parsed.success) {
      throw new ValidationError(
        'Invalid API key request',
        parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      );
    }
    const input = parsed.data;
    await Teams.get(teamId);
    const manager = await authorizeManager(teamId, request);
    assertGrantable(manager, input.scopes, 'An API key');
    const { actor, owner } = manager;
    const rawKey = `vxd_${randomBytes(32).toString('hex')}`;
    const keyHash = hashApiKey(rawKey);
    const now = new Date();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      teamId,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      serviceAccountId: randomUUID(),
      createdAt: now.toISOString(),
      createdBy: actor.id,
      owner,
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000).toISOString() : null,
      revokedAt: null,
    };
    const accountName = serviceAccountName(record.name);
    // `revokedAt` is absent until revocation so the revoke condition can test attribute_not_exists.
    const { revokedAt: _notRevoked, ...storedRecord } = record;
    try {
      await transactWrite([
        tx.create({
          ...keys.apiKey(teamId, record.id),
          entity: 'ApiKey',
          ...storedRecord,
          keyHash,
          ...(record.expiresAt ? keys.apiKeyExpiryIndex(teamId, record.id, record.expiresAt) : {}),
        }),
        tx.create({
          ...keys.apiKeyHash(keyHash),
          entity: 'ApiKeyHash',
          keyHash,
          teamId,
          keyId: record.id,
          serviceAccountId: record.serviceAccountId,
          name: record.name,
          scopes: record.scopes,
          owner,
          expiresAt: record.expiresAt,
        }),
        tx.create({ ...keys.apiKeyNameClaim(teamId, record.name), entity: 'ApiKeyNameClaim', keyId: record.id }),
        tx.create({
          ...keys.serviceAccount(teamId, record.serviceAccountId),
          entity: 'ServiceAccount',
          id: record.serviceAccountId,
          teamId,
          name: accountName,
          keyId: record.id,
          createdAt: record.createdAt,
        }),
        auditPut(teamId, actor, {
          action: 'create',
          entityType: 'api_key',
          entityId: record.id,
          entityName: record.name,
          changes: {
            name: record.name,
            scopes: record.scopes,
            owner,
            expiresAt: record.expiresAt,
            serviceAccount: accountName,
          },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(2))
        throw new ConflictError(`An active API key named "${record.name}" already exists`);
      throw error;
    }
    return { ...record, key: rawKey };
  },

  async find(teamId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const item = await getItem(keys.apiKey(teamId, keyId));
    return item ? toRecord(item) : undefined;
  },

  async list(teamId: string): Promise<ApiKeyRecord[]> {
    const { pk, skPrefix } = keys.apiKeyPrefix(teamId);
    return (await queryAll({ pk, skPrefix })).map(toRecord);
  },

  /** Permanent: the hash item is marked revoked and the service account removed, in one transaction. */
  async revoke(teamId: string, keyId: string, request: ManagerRequest): Promise<ApiKeyRecord> {
    const item = await getItem(keys.apiKey(teamId, keyId));
    if (!item) throw new NotFoundError('API key');
    const record = toRecord(item);
    if (record.revokedAt) throw new ConflictError('The API key is already revoked');
    const { actor } = await authorizeManager(teamId, request);
    const revokedAt = new Date().toISOString();
    const keyHash = String(item.keyHash);
    try {
      await transactWrite([
        tx.update(
          keys.apiKey(teamId, keyId),
          'SET #revokedAt = :at',
          { '#revokedAt': 'revokedAt' },
          { ':at': revokedAt },
          'attribute_exists(pk) AND attribute_not_exists(#revokedAt)',
        ),
        tx.update(
          keys.apiKeyHash(keyHash),
          'SET #revokedAt = :at',
          { '#revokedAt': 'revokedAt' },
          { ':at': revokedAt },
          'attribute_exists(pk)',
        ),
        tx.delete(keys.apiKeyNameClaim(teamId, record.name)),
        tx.delete(keys.serviceAccount(teamId, record.serviceAccountId)),
        auditPut(teamId, actor, {
          action: 'revoke',
          entityType: 'api_key',
          entityId: keyId,
          entityName: record.name,
          changes: { revokedAt, serviceAccount: serviceAccountName(record.name) },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0))
        throw new ConflictError('The API key is already revoked');
      throw error;
    }
    return { ...record, revokedAt };
  },

  /**
   * Hands an active key to another owner (a manager taking over a removed member's keys): from then on it acts
   * with at most the new owner's permissions. 409 when the key was revoked meanwhile.
   */
  async handOver(teamId: string, keyId: string, heir: CredentialOwner, manager: Manager): Promise<void> {
    const item = await getItem(keys.apiKey(teamId, keyId));
    if (!item) throw new NotFoundError('API key');
    const record = toRecord(item);
    const activeKey = 'attribute_exists(pk) AND attribute_not_exists(#revokedAt)';
    const setOwner = (key: { pk: string; sk: string }) =>
      tx.update(
        key,
        'SET #owner = :owner',
        { '#owner': 'owner', '#revokedAt': 'revokedAt' },
        { ':owner': heir },
        activeKey,
      );
    try {
      await transactWrite([
        setOwner(keys.apiKey(teamId, keyId)),
        setOwner(keys.apiKeyHash(String(item.keyHash))),
        auditPut(teamId, manager.actor, {
          action: 'hand_over',
          entityType: 'api_key',
          entityId: keyId,
          entityName: record.name,
          changes: { owner: { from: record.owner, to: heir } },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && (error.failedAt(0) || error.failedAt(1)))
        throw new ConflictError('The API key was revoked meanwhile');
      throw error;
    }
  },

  /**
   * The authorizer's check: format, hash lookup, constant-time compare, expiry, revocation, and the owner: the key
   * acts with those of its scopes its owner holds now, and not at all once the owner has left (or when it has no
   * recorded owner: a key made before owners were recorded that the migration has not reached).
   */
  async authenticate(rawKey: string, now = new Date()): Promise<AuthenticatedKey | undefined> {
    if (!API_KEY_PATTERN.test(rawKey)) return undefined;
    const computed = Buffer.from(hashApiKey(rawKey), 'hex');
    const item = await getItem(keys.apiKeyHash(computed.toString('hex')));
    if (!item) return undefined;
    const stored = Buffer.from(String(item.keyHash), 'hex');
    // Spec "Authentication" rule 6: compare hashes in constant time.
    if (stored.length !== computed.length || !timingSafeEqual(stored, computed)) return undefined;
    if (item.revokedAt) return undefined;
    if (typeof item.expiresAt === 'string' && Date.parse(item.expiresAt) <= now.getTime()) return undefined;
    const teamId = String(item.teamId);
    const owner = parseOwner(item.owner);
    const ownerScopes = owner && (await ownerScopesNow(teamId, owner));
    if (!owner || !ownerScopes) return undefined;
    return {
      teamId,
      keyId: String(item.keyId),
      serviceAccountId: String(item.serviceAccountId),
      name: String(item.name),
      scopes: capScopes(item.scopes as Scope[], ownerScopes),
      personId: owner.id,
    };
  },
};
