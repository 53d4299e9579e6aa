/**
 * API keys (spec "API key", BRIEF decision 6): `vxd_` + 64 lowercase hex,
 * shown once, only the SHA-256 stored; each key is backed by a service account
 * named `api_<key name>`. Revocation is permanent and immediate: the authorizer
 * reads the hash item with a strongly consistent read on every request.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { keys } from '../data/keys';
import { getItem, queryAll, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import { auditPut } from '../audit/audit-log';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { SCOPES, type Scope } from './scopes';
import { serviceAccountName, type Actor } from './actor';
import { Members, Teams } from './teams';
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
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface AuthenticatedKey {
  teamId: string;
  keyId: string;
  serviceAccountId: string;
  name: string;
  scopes: Scope[];
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
    expiresAt: (item.expiresAt as string | null | undefined) ?? null,
    revokedAt: (item.revokedAt as string | null | undefined) ?? null,
  };
}

/**
 * Who creates or revokes a key: the admin CLI (the operator, or `--by` a member), or an API caller the
 * self-service layer already checked (shared/service/identity/workspace.ts), whose new keys may not exceed its own scopes.
 */
export type KeyManagement =
  { byMemberId?: string | undefined; operator: Actor } | { authorized: Actor; heldScopes: readonly string[] };

/** Spec "Authentication" rule 7: only members holding `settings.manage` create or revoke keys. */
async function authorizeKeyManagement(teamId: string, options: KeyManagement): Promise<Actor> {
  if ('authorized' in options) return options.authorized;
  const { byMemberId, operator } = options;
  if (byMemberId === undefined) return operator;
  const member = await Members.find(teamId, byMemberId);
  if (!member) throw new NotFoundError('Member');
  if (!member.permissions.includes('settings.manage')) {
    throw new ForbiddenError('Only members holding the settings.manage permission can create or revoke API keys');
  }
  return Members.actorOf(member);
}

export const ApiKeys = {
  /** Creates a key; the raw value is returned here once and never stored. */
  async create(teamId: string, rawInput: unknown, options: KeyManagement): Promise<ApiKeyRecord & { key: string }> {
    const parsed = createApiKeyInput.safeParse(rawInput);
    if (!parsed.success) {
      throw new ValidationError(
        'Invalid API key request',
        parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      );
    }
    const input = parsed.data;
    await Teams.get(teamId);
    const actor = await authorizeKeyManagement(teamId, options);
    if ('heldScopes' in options) {
      // A caller cannot mint a key stronger than itself (as for trust policies, docs/oidc.md).
      const beyond = input.scopes.filter((scope) => !options.heldScopes.includes(scope));
      if (beyond.length > 0)
        throw new ForbiddenError(`A key may only grant scopes the caller holds; not held: ${beyond.join(', ')}`);
    }
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
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000).toISOString() : null,
      revokedAt: null,
    };
    const accountName = serviceAccountName(record.name);
    // `revokedAt` is absent until revocation so the revoke condition can test attribute_not_exists.
    const { revokedAt: _notRevoked, ...storedRecord } = record;
    try {
      await transactWrite([
        tx.create({ ...keys.apiKey(teamId, record.id), entity: 'ApiKey', ...storedRecord, keyHash }),
        tx.create({
          ...keys.apiKeyHash(keyHash),
          entity: 'ApiKeyHash',
          keyHash,
          teamId,
          keyId: record.id,
          serviceAccountId: record.serviceAccountId,
          name: record.name,
          scopes: record.scopes,
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
  async revoke(teamId: string, keyId: string, options: KeyManagement): Promise<ApiKeyRecord> {
    const item = await getItem(keys.apiKey(teamId, keyId));
    if (!item) throw new NotFoundError('API key');
    const record = toRecord(item);
    if (record.revokedAt) throw new ConflictError('The API key is already revoked');
    const actor = await authorizeKeyManagement(teamId, options);
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

  /** The authorizer's check: format, hash lookup, constant-time compare, expiry and revocation. */
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
    return {
      teamId: String(item.teamId),
      keyId: String(item.keyId),
      serviceAccountId: String(item.serviceAccountId),
      name: String(item.name),
      scopes: item.scopes as Scope[],
    };
  },
};
