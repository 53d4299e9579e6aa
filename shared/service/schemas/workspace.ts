/**
 * The team workspace's self-service API (docs/sign-in.md "Members and API keys"): members
 * (invited by email, matched to an identity at first sign-in) and API keys. Key values
 * appear once, in the create answer's `key`; lists never carry them or their hashes.
 */
import * as z from 'zod';
import { SCOPES } from '../http/scopes';
import { EXPIRY_CHOICES_DAYS, PERMISSIONS } from '../identity/permission-names';
import { credentialNameSchema } from './common';

const permissions = z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length);

export const memberSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    permissions: z.array(z.enum(PERMISSIONS)),
    createdAt: z.string(),
  })
  .meta({ id: 'Member' });

export const memberIdParams = z.object({ memberId: z.uuid() });

export const inviteMemberBody = z
  .strictObject({
    email: z.email().max(254),
    name: z.string().trim().min(1).max(255).optional(),
    permissions: permissions.default([]),
  })
  .meta({ id: 'InviteMember' });

export const updateMemberBody = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    permissions: permissions.optional(),
  })
  .meta({ id: 'UpdateMember' });

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scopes: z.array(z.string()),
    serviceAccount: z
      .string()
      .meta({ description: 'The audit actor of the key\'s calls: `api_` + name (spec "Authentication" rule 11)' }),
    createdAt: z.string(),
    createdBy: z.string(),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().meta({ description: 'The key value (`vxd_` + 64 hex), shown only in this answer' }) })
  .meta({ id: 'CreatedApiKey' });
export type CreatedApiKeyView = z.infer<typeof createdApiKeySchema>;

export const keyIdParams = z.object({ keyId: z.uuid() });

export const createApiKeyBody = z
  .strictObject({
    name: credentialNameSchema,
    scopes: z.array(z.enum(SCOPES)).min(1),
    expiresInDays: z.union(EXPIRY_CHOICES_DAYS.map((days) => z.literal(days))).optional(),
  })
  .meta({ id: 'CreateApiKey' });

export const memberResponse = z.object({ data: memberSchema });
export const memberListResponse = z.object({ data: z.array(memberSchema) });
export const apiKeyListResponse = z.object({ data: z.array(apiKeySchema) });
export const createdApiKeyResponse = z.object({ data: createdApiKeySchema });
