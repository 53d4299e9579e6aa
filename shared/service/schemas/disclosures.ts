import * as z from 'zod';
import { vexFormat } from './vex';

export const disclosureListQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  format: vexFormat.optional(),
});

export const disclosureSlugParams = z.object({
  slug: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[a-z0-9-]+$/),
});
export const disclosureReadQuery = z.object({ format: z.enum(['json', 'raw']).default('json') });

/** A team's public keys: `json` (fingerprints, validity, armored and JWK), `asc` (armored, for `gpg --import`) or `jwks`. */
export const publisherKeysParams = z.object({ teamId: z.uuid() });
export const publisherKeysQuery = z.object({ format: z.enum(['json', 'asc', 'jwks']).default('json') });

export const publisherKeyView = z.object({
  fingerprint: z.string(),
  key_id: z.string(),
  algorithm: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  armored: z.string(),
  jwk: z.object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    kid: z.string(),
    use: z.literal('sig'),
    alg: z.literal('EdDSA'),
  }),
});
