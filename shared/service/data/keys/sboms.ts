/**
 * Keys of SBOMs and what hangs off them: the SBOM items, content claims, scan leases and findings in
 * the product collection, pre-signed upload sessions, the recovery indexes on gsi1, and the S3
 * objects (the original file, its parsed inventory and its findings digest).
 */
import { productPk, releasePrefix, teamPk, type Key } from './partitions';

export const sbomKeys = {
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
   * The team's index of SBOMs (gsi2, on the SBOM item itself): the dashboard reads every SBOM of the team in one
   * query instead of one per release. The sort key groups them by product and release.
   */
  sbomOfTeam: (teamId: string, productId: string, releaseId: string, sbomId: string) => ({
    gsi2pk: `${teamPk(teamId)}#SBOMS`,
    gsi2sk: `${productId}#${releaseId}#${sbomId}`,
  }),
  sbomsOfTeamPartition: (teamId: string) => ({ gsi2pk: `${teamPk(teamId)}#SBOMS` }),
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
  /** S3 object keys. Team-prefixed like table keys, so a product's files share one prefix. */
  sbomObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}`,
  /** The parsed component inventory, kept next to the original so scans and reports need not re-parse. */
  sbomInventoryObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}.components.json.gz`,
  /** The findings of an SBOM's last completed scan, written with it (shared/service/scans/findings-digest.ts); one per SBOM, overwritten by each scan. */
  sbomFindingsObject: (teamId: string, productId: string, releaseId: string, sbomId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/sboms/${sbomId}.findings.json.gz`,
  sbomUploadObject: (teamId: string, uploadId: string) => `uploads/${teamId}/${uploadId}`,
} as const;
