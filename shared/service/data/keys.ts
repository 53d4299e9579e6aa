/**
 * Every key of the single table is built here and nowhere else.
 *
 * Layout (see docs/architecture.md for the access patterns):
 * - team partition `TEAM#<teamId>`: the team, members, service accounts, API keys,
 *   products and slug claims;
 * - id pointers, one partition each (`TEAM#<teamId>#ID#<uuid>`), that resolve a
 *   public id to the item that holds it (a scan writes thousands at once: in the
 *   team partition they throttled on AWS, docs/architecture.md "Partition load");
 * - product collection `TEAM#<teamId>#PRODUCT#<productId>`: everything under a
 *   product (releases, SBOMs, findings, dispositions, VEX documents, approvals),
 *   so a product delete walks one item collection;
 * - audit partitions `TEAM#<teamId>#AUDIT#<shard>` (AUDIT_SHARDS of them, the
 *   shard from a hash of the entry id), sorted by time, with GSIs by entity type,
 *   action and both, sharded the same way; readers merge the shards in time order;
 * - `TEAM#<teamId>#TRUST_POLICIES`: the team's OIDC trust policies;
 * - `TEAM#<teamId>#SESSION_TIMEOUTS`: the team's browser-session timeouts (read by the authorizer);
 * - `TEAM#<teamId>#PUBLISHER_KEYS`: the team's public publisher keys (read by the public disclosures
 *   function); their sealed private halves stay in the team partition;
 * - global partitions for API key and issued-token hashes, used OIDC token ids, member logins by email,
 *   browser sessions and sign-in flows by hash, corpus data and public disclosures.
 */
import { createHash } from 'node:crypto';

export type Key = { pk: string; sk: string };

/**
 * Write shards of a team's audit log. DynamoDB serves about 1,000 writes per second
 * per partition (base table and each GSI); eight shards carry 8,000, and an export
 * reads eight sorted ranges and merges them. Changing the number re-homes existing
 * entries: it needs a migration like shared/service/data/key-layout-migration.ts.
 */
export const AUDIT_SHARDS = 8;

/** The shard of an audit entry: stable for its id, uniform over AUDIT_SHARDS. */
export function auditShardOf(auditId: string): number {
  return createHash('sha256').update(auditId).digest().readUInt32BE(0) % AUDIT_SHARDS;
}

const auditShards = Array.from({ length: AUDIT_SHARDS }, (_, shard) => shard);

const teamPk = (teamId: string) => `TEAM#${teamId}`;
const productPk = (teamId: string, productId: string) => `TEAM#${teamId}#PRODUCT#${productId}`;
const auditPk = (teamId: string, shard: number) => `TEAM#${teamId}#AUDIT#${shard}`;
const releasePrefix = (releaseId: string) => `R#${releaseId}#`;
const productListPk = (teamId: string) => `TEAM#${teamId}#PRODUCTS`;

export const keys = {
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

  product: (teamId: string, productId: string): Key => ({ pk: teamPk(teamId), sk: `PRODUCT#${productId}` }),
  productPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'PRODUCT#' }),
  productSlugClaim: (teamId: string, slug: string): Key => ({ pk: teamPk(teamId), sk: `PRODUCT_SLUG#${slug}` }),
  /** The partition holding everything under a product (walked by the cascading delete). */
  productCollection: (teamId: string, productId: string) => ({ pk: productPk(teamId, productId) }),
  /**
   * Live products of a team and whether its list index is built (docs/architecture.md "Product list at scale").
   * At the head of the index partition: `~` sorts after every timestamp, so the descending Query of a
   * page returns the count first and the total costs no extra request.
   */
  productCount: (teamId: string): Key => ({ pk: productListPk(teamId), sk: '~COUNT' }),
  /** The list's ordered index: one small entry per live product, sorted by creation time (the list reads it newest first). */
  productListEntry: (teamId: string, createdAt: string, productId: string): Key => ({
    pk: productListPk(teamId),
    sk: `${createdAt}#${productId}`,
  }),
  productListPartition: (teamId: string) => ({ pk: productListPk(teamId) }),
  /** The product id an index entry's sort key names. */
  productIdOfListEntry: (sk: string): string => sk.slice(sk.lastIndexOf('#') + 1),

  /**
   * Resolves a public uuid (release, SBOM, finding, disposition, VEX document) to its item.
   * Its own partition, under the team's prefix (tenant guard and LeadingKeys still apply).
   */
  idPointer: (teamId: string, entityId: string): Key => ({ pk: `${teamPk(teamId)}#ID#${entityId}`, sk: 'ID' }),

  release: (teamId: string, productId: string, releaseId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `RELEASE#${releaseId}`,
  }),
  releasePrefix: (teamId: string, productId: string) => ({ pk: productPk(teamId, productId), skPrefix: 'RELEASE#' }),
  releaseVersionClaim: (teamId: string, productId: string, version: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `RELEASE_VERSION#${version}`,
  }),
  /** Everything that belongs to one release (SBOMs, findings, dispositions, VEX documents). */
  releaseChildrenPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: releasePrefix(releaseId),
  }),

  sbom: (teamId: string, productId: string, releaseId: string, sbomId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}SBOM#${sbomId}`,
  }),
  sbomPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}SBOM#`,
  }),
  /**
   * One SBOM per file content in a release (docs/api.md "Duplicate uploads"): created in the SBOM's own
   * transaction, so two identical uploads racing cannot both commit.
   */
  sbomContentClaim: (teamId: string, productId: string, releaseId: string, fileHash: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}SBOM_HASH#${fileHash}`,
  }),
  /** The one-scan-at-a-time lease of an SBOM (shared/service/scans/scan-lease.ts); beside the SBOM so a product delete takes it along. */
  scanLease: (teamId: string, productId: string, releaseId: string, sbomId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}SCAN_LEASE#${sbomId}`,
  }),
  finding: (teamId: string, productId: string, releaseId: string, sbomId: string, findingId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}FINDING#${sbomId}#${findingId}`,
  }),
  findingPrefix: (teamId: string, productId: string, releaseId: string, sbomId?: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}FINDING#${sbomId ? `${sbomId}#` : ''}`,
  }),
  /**
   * One decision per (release, package at version, advisory): `decisionKey` is
   * shared/service/dispositions/decision-identity.ts's key, so every SBOM of the release meets it.
   */
  disposition: (teamId: string, productId: string, releaseId: string, decisionKey: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}DISPOSITION#${decisionKey}`,
  }),
  dispositionPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}DISPOSITION#`,
  }),
  dispositionHistory: (
    teamId: string,
    productId: string,
    releaseId: string,
    decisionKey: string,
    at: string,
    changeId: string,
  ): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}DISPOSITION_HISTORY#${decisionKey}#${at}#${changeId}`,
  }),
  dispositionHistoryPrefix: (teamId: string, productId: string, releaseId: string, decisionKey: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}DISPOSITION_HISTORY#${decisionKey}#`,
  }),
  /**
   * The product's carry-over index: the latest counted decision on each (package at version, advisory)
   * in any release of the product, written in the same transaction as the decision. A scan reads this
   * one prefix instead of every earlier release (docs/triage-continuity.md).
   */
  decisionCarry: (teamId: string, productId: string, decisionKey: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `CARRY#${decisionKey}`,
  }),
  decisionCarryPrefix: (teamId: string, productId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: 'CARRY#',
  }),
  vexDocument: (teamId: string, productId: string, releaseId: string, vexId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}VEX#${vexId}`,
  }),
  vexDocumentPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}VEX#`,
  }),
  approval: (
    teamId: string,
    productId: string,
    releaseId: string,
    vexId: string,
    at: string,
    approvalId: string,
  ): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}APPROVAL#${vexId}#${at}#${approvalId}`,
  }),
  approvalPrefix: (teamId: string, productId: string, releaseId: string, vexId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}APPROVAL#${vexId}#`,
  }),
  sbomUpload: (teamId: string, uploadId: string): Key => ({ pk: teamPk(teamId), sk: `SBOM_UPLOAD#${uploadId}` }),
  /**
   * Recovery indexes on gsi1 (sparse: only items with something left to do carry them), each sorted
   * by the time the work became due, so a sweep reads only what is overdue and never scans the table.
   * - pending scan: on the SBOM item from upload (or scan start) until its scan completes or fails;
   * - SBOM staging: an item written before an upload's S3 objects, deleted in the transaction that creates the SBOM;
   * - upload session: on a pre-signed upload session, due when its URL expires.
   */
  pendingScanIndex: (since: string, sbomId: string) => ({ gsi1pk: 'RECOVERY#SCAN', gsi1sk: `${since}#${sbomId}` }),
  pendingScanPartition: () => ({ gsi1pk: 'RECOVERY#SCAN' }),
  sbomStaging: (teamId: string, sbomId: string): Key => ({ pk: teamPk(teamId), sk: `SBOM_STAGING#${sbomId}` }),
  sbomStagingIndex: (since: string, sbomId: string) => ({
    gsi1pk: 'RECOVERY#SBOM_STAGING',
    gsi1sk: `${since}#${sbomId}`,
  }),
  sbomStagingPartition: () => ({ gsi1pk: 'RECOVERY#SBOM_STAGING' }),
  sbomUploadIndex: (expiresAt: string, uploadId: string) => ({
    gsi1pk: 'RECOVERY#SBOM_UPLOAD',
    gsi1sk: `${expiresAt}#${uploadId}`,
  }),
  sbomUploadPartition: () => ({ gsi1pk: 'RECOVERY#SBOM_UPLOAD' }),

  /**
   * A disposition batch's intent while it is being applied or rolled back (team partition,
   * spans releases). Deleted when the batch ends, so the pending ones are one cheap prefix query.
   */
  dispositionBatchPending: (teamId: string, batchId: string): Key => ({
    pk: teamPk(teamId),
    sk: `DISPOSITION_BATCH_PENDING#${batchId}`,
  }),
  dispositionBatchPendingPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'DISPOSITION_BATCH_PENDING#' }),
  /** Sparse gsi1 entry on a pending intent: the recovery sweep finds every team's pending batches without a Scan. */
  dispositionBatchPendingIndex: (teamId: string, batchId: string, createdAt: string) => ({
    gsi1pk: 'DISPOSITION_BATCH_PENDING',
    gsi1sk: `${createdAt}#${teamId}#${batchId}`,
  }),
  dispositionBatchPendingIndexPartition: () => ({
    pk: 'DISPOSITION_BATCH_PENDING',
    indexName: 'gsi1' as const,
    pkAttribute: 'gsi1pk',
    skAttribute: 'gsi1sk',
  }),
  /** How a finished batch ended (committed or failed), kept for a while after its intent is gone. */
  dispositionBatchOutcome: (teamId: string, batchId: string): Key => ({
    pk: teamPk(teamId),
    sk: `DISPOSITION_BATCH#${batchId}`,
  }),

  /** Public disclosures: global (they outlive the team's product), one item per published snapshot. */
  disclosure: (slug: string): Key => ({ pk: `DISCLOSURE#${slug}`, sk: 'DISCLOSURE' }),
  /** Snapshots of one VEX document, by version, so a disclosure lists its siblings. */
  disclosureOfDocument: (vexId: string, version: number): Key => ({
    pk: `DISCLOSED_DOC#${vexId}`,
    sk: `V#${String(version).padStart(6, '0')}`,
  }),
  disclosureOfDocumentPrefix: (vexId: string) => ({ pk: `DISCLOSED_DOC#${vexId}`, skPrefix: 'V#' }),
  /** Publication counters and sequence-numbered index items: page N of the list is one range query. */
  disclosureCounter: (format: string): Key => ({ pk: 'DISCLOSURE_COUNTER', sk: format }),
  disclosureIndexEntry: (format: string, sequence: number): Key => ({
    pk: `DISCLOSURE_INDEX#${format}`,
    sk: String(sequence).padStart(12, '0'),
  }),
  disclosureIndexPartition: (format: string) => ({ pk: `DISCLOSURE_INDEX#${format}` }),
  disclosureSequenceKey: (sequence: number) => String(sequence).padStart(12, '0'),
  disclosureObject: (slug: string) => `disclosures/${slug}/content`,

  /**
   * A team's CSAF provider (docs/csaf-provider.md): a global partition per team, outside `TEAM#`, so the
   * public provider routes read it without any grant on the team's own items. `PROVIDER`: the
   * publisher and directory name; `DOC#<file base>`: the current revision of a release's CSAF;
   * `RELEASE#<releaseId>`: which file base the release's CSAF has.
   */
  csafProvider: (teamId: string): Key => ({ pk: `CSAF_PROVIDER#${teamId}`, sk: 'PROVIDER' }),
  csafDocument: (teamId: string, fileBase: string): Key => ({ pk: `CSAF_PROVIDER#${teamId}`, sk: `DOC#${fileBase}` }),
  csafDocumentPrefix: (teamId: string) => ({ pk: `CSAF_PROVIDER#${teamId}`, skPrefix: 'DOC#' }),
  csafReleaseDocument: (teamId: string, releaseId: string): Key => ({
    pk: `CSAF_PROVIDER#${teamId}`,
    sk: `RELEASE#${releaseId}`,
  }),
  /** Public directory name → team; unique across the deployment. */
  csafDirectoryClaim: (directory: string): Key => ({ pk: `CSAF_DIRECTORY#${directory}`, sk: 'CSAF_DIRECTORY' }),
  /** Files published beside a snapshot (signature, checksums, DSSE attestation); names in shared/service/disclosures/disclosure-files.ts. */
  disclosureFileObject: (slug: string, suffix: string) => `disclosures/${slug}/content.${suffix}`,
  /**
   * A team's publisher keys: public halves in their own partition, in the order they were made (a
   * sequence number: OpenPGP creation times have one-second resolution); the head names the current key.
   */
  publisherKeyPrefix: (teamId: string) => ({ pk: `${teamPk(teamId)}#PUBLISHER_KEYS`, skPrefix: 'KEY#' }),
  publisherKey: (teamId: string, sequence: number): Key => ({
    pk: `${teamPk(teamId)}#PUBLISHER_KEYS`,
    sk: `KEY#${String(sequence).padStart(6, '0')}`,
  }),
  publisherKeyHead: (teamId: string): Key => ({ pk: `${teamPk(teamId)}#PUBLISHER_KEYS`, sk: 'HEAD' }),
  /** The sealed private key (KMS ciphertext on AWS), never in the partition the public function reads. */
  publisherPrivateKey: (teamId: string, fingerprint: string): Key => ({
    pk: teamPk(teamId),
    sk: `PUBLISHER_PRIVATE_KEY#${fingerprint}`,
  }),
  vexContentObject: (teamId: string, productId: string, releaseId: string, vexId: string, version: number) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/vex/${vexId}/v${version}.json`,
  vexInputObject: (teamId: string, productId: string, releaseId: string, vexId: string, version: number) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/vex/${vexId}/v${version}.input.json`,

  audit: (teamId: string, at: string, auditId: string): Key => ({
    pk: auditPk(teamId, auditShardOf(auditId)),
    sk: `${at}#${auditId}`,
  }),
  /** Every shard of the team's audit log (a reader merges them in sort-key order). */
  auditPartitions: (teamId: string) => auditShards.map((shard) => ({ pk: auditPk(teamId, shard) })),
  auditByEntityType: (teamId: string, entityType: string, shard: number) => ({
    gsi1pk: `${auditPk(teamId, shard)}#ENTITY#${entityType}`,
  }),
  auditByAction: (teamId: string, action: string, shard: number) => ({
    gsi2pk: `${auditPk(teamId, shard)}#ACTION#${action}`,
  }),
  auditByEntityTypeAndAction: (teamId: string, entityType: string, action: string, shard: number) => ({
    gsi3pk: `${auditPk(teamId, shard)}#ENTITY#${entityType}#ACTION#${action}`,
  }),

  /** Vulnerability corpus (global, not team data): match data per package, import bookkeeping per advisory, scores per CVE. */
  corpusPackage: (ecosystem: string, normalizedName: string): Key => ({
    pk: `CORPUS#PKG#${ecosystem}#${normalizedName}`,
    sk: 'PKG',
  }),
  corpusAdvisory: (advisoryId: string): Key => ({ pk: `CORPUS#ADV#${advisoryId}`, sk: 'ADV' }),
  /** Package keys sharing a short name (CPE product, bare component name) → the corpus packages to fetch. */
  corpusShortName: (shortName: string): Key => ({ pk: `CORPUS#SHORT#${shortName}`, sk: 'SHORT' }),
  /** The scores of every record whose id or aliases name this identifier (shared/service/corpus/alias-severity.ts). */
  corpusAlias: (identifier: string): Key => ({ pk: `CORPUS#ALIAS#${identifier}`, sk: 'ALIAS' }),
  corpusKev: (cveId: string): Key => ({ pk: `CORPUS#KEV#${cveId}`, sk: 'KEV' }),
  corpusEpss: (cveId: string): Key => ({ pk: `CORPUS#EPSS#${cveId}`, sk: 'EPSS' }),
  /** The corpus package filter (shared/service/corpus/package-filter.ts): a head naming the current version, and that version's chunks. */
  corpusPackageFilterHead: (): Key => ({ pk: 'CORPUS#FILTER', sk: 'HEAD' }),
  corpusPackageFilterChunk: (version: string, chunk: number): Key => ({
    pk: 'CORPUS#FILTER',
    sk: `V#${version}#${chunk}`,
  }),
  /** One completion record per corpus source (osv, kev, epss), written only when that source's import finished. */
  corpusSourceImport: (source: string): Key => ({ pk: 'CORPUS#META', sk: `SOURCE#${source}` }),
  corpusSpillObject: (kind: 'package' | 'advisory', id: string) => `corpus/${kind}/${encodeURIComponent(id)}.json`,

  /** S3 object keys. Team-prefixed like table keys, so a product's files share one prefix. */
  sbomObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}`,
  /** The parsed component inventory, kept next to the original so scans and reports need not re-parse. */
  sbomInventoryObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}.components.json.gz`,
  /** The findings of an SBOM's last completed scan, written with it (shared/service/scans/findings-digest.ts); one per SBOM, overwritten by each scan. */
  sbomFindingsObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}.findings.json.gz`,
  productObjectsPrefix: (teamId: string, productId: string) => `teams/${teamId}/products/${productId}/`,
  releaseObjectsPrefix: (teamId: string, productId: string, releaseId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/`,
  sbomUploadObject: (teamId: string, uploadId: string) => `uploads/${teamId}/${uploadId}`,

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
  /**
   * The key layout before id pointers and audit entries were spread (read only by the
   * migration, shared/service/data/key-layout-migration.ts): pointers in the team partition,
   * one audit partition per team (its GSI keys had no shard either).
   */
  legacyIdPointer: (teamId: string, entityId: string): Key => ({ pk: teamPk(teamId), sk: `ID#${entityId}` }),
  legacyAuditPartition: (teamId: string) => ({ pk: `${teamPk(teamId)}#AUDIT` }),
  /** Marks the key-layout migration done for this table (global; no team owns it). */
  keyLayoutMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `KEY_LAYOUT#${version}` }),
  /** Marks the move of dispositions from finding-id keys to decision keys done (shared/service/dispositions/decision-migration.ts). */
  decisionKeyMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `DECISION_KEYS#${version}` }),
  /** Marks the recording of owners on older API keys and trust policies done (shared/service/identity/credential-owner-migration.ts). */
  credentialOwnerMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `CREDENTIAL_OWNERS#${version}` }),

  /** What marks a partition key or object key as some team's (each is followed by the team id). */
  teamOwned: () => ({ partitionPrefix: teamPk(''), objectPrefixes: ['teams/', 'uploads/'] }),
} as const;
