import * as z from 'zod';
import { vexDocumentSchema, vexFormat } from './vex';

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

export const publisherKeySchema = z
  .object({
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
  })
  .meta({ id: 'PublisherKey' });

export const publisherKeyListResponse = z
  .object({ data: z.array(publisherKeySchema) })
  .meta({ id: 'PublisherKeyList' });
/** `format=jwks`: the same keys as a JSON Web Key Set. */
export const publisherJwksSchema = z
  .object({ keys: z.array(publisherKeySchema.shape.jwk) })
  .meta({ id: 'PublisherJwks' });

/** Relative paths (spec: `self`, `raw`); the files beside the snapshot where it has them. */
const disclosureLinks = z.object({
  self: z.string(),
  raw: z.string(),
  verify: z.string(),
  signature: z.string().optional().meta({ description: 'OpenPGP detached signature (armored)' }),
  sha256: z.string().optional(),
  sha512: z.string().optional(),
  attestation: z.string().optional().meta({ description: 'OpenVEX only: the in-toto attestation (DSSE envelope)' }),
  public_keys: z.string().optional().meta({ description: "The publisher's OpenPGP keys (armored)" }),
});

/** Spec "Disclosure (published snapshot)": one item of the list, and the head of a single disclosure. */
export const disclosureSchema = z
  .object({
    id: z.string(),
    document_id: z.string(),
    version: z.number().int(),
    format: vexFormat,
    public_slug: z.string(),
    content_hash: z.string().meta({ description: '`sha256:<hex>` of the raw bytes' }),
    signed: z.boolean().meta({ description: 'Whether the snapshot carries an HMAC-SHA256 signature' }),
    published_at: z.string(),
    product: z.object({ name: z.string(), vendor: z.string().nullable() }),
    release: z.object({ version: z.string() }),
    links: disclosureLinks,
  })
  .meta({ id: 'Disclosure' });
export type DisclosureView = z.infer<typeof disclosureSchema>;

/** Spec: `{ data, meta, links }`, `meta` with `limit` where the other lists say `perPage`. */
export const disclosureListResponse = z
  .object({
    data: z.array(disclosureSchema),
    meta: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int(),
      totalPages: z.number().int(),
      hasNextPage: z.boolean(),
      hasPrevPage: z.boolean(),
    }),
    links: z.object({ self: z.string(), first: z.string(), last: z.string(), next: z.string().nullable() }),
  })
  .meta({ id: 'DisclosureList' });

/** Every published version of the same VEX document, oldest first. */
export const disclosureSnapshotSchema = z
  .object({
    version: z.number().int(),
    public_slug: z.string(),
    content_hash: z.string(),
    published_at: z.string(),
    links: z.object({ self: z.string(), raw: z.string() }),
  })
  .meta({ id: 'DisclosureSnapshot' });
export type DisclosureSnapshotView = z.infer<typeof disclosureSnapshotSchema>;

/** `GET /api/disclosures/{slug}` (json): the disclosure, its snapshots and the VEX content. */
export const disclosureDetailSchema = disclosureSchema
  .extend({
    links: disclosureLinks.extend({
      provider_metadata: z.string().optional().meta({ description: "CSAF only: the team's provider-metadata.json" }),
    }),
    signing_key_id: z.string().nullable(),
    public_key_fingerprint: z.string().nullable(),
    snapshots: z.array(disclosureSnapshotSchema),
    content: z.record(z.string(), z.unknown()).meta({ description: 'The published VEX document' }),
  })
  .meta({ id: 'DisclosureDetail' });

export const disclosureResponse = z.object({ data: disclosureDetailSchema }).meta({ id: 'DisclosureResponse' });

/** Spec "Verify response fields", plus the OpenPGP check against the team's published keys. */
export const disclosureVerificationSchema = z
  .object({
    public_slug: z.string(),
    content_hash: z.string(),
    content_hash_valid: z.boolean(),
    signed: z.boolean(),
    signature_valid: z.boolean().nullable().meta({ description: 'null when the signing key is not on the server' }),
    signature_algorithm: z.string().nullable(),
    signing_key_id: z.string().nullable(),
    public_key_signature: z.object({
      signed: z.boolean(),
      signature_valid: z.boolean().nullable(),
      algorithm: z.string().nullable(),
      key_fingerprint: z.string().nullable(),
      key_status: z.enum(['listed', 'revoked', 'unknown']).nullable(),
    }),
    verified_at: z.string(),
  })
  .meta({ id: 'DisclosureVerification' });

/** The answer of publish (spec): the published document and its disclosure. */
export const publishedVexResponse = z
  .object({ vexDocument: vexDocumentSchema, disclosure: disclosureSchema })
  .meta({ id: 'PublishedVexDocument' });
