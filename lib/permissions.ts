/**
 * Least privilege, as data: what each Lambda may touch. The stack turns these
 * entries into IAM grants and the infra tests read them back from the template,
 * so a widened grant shows up as a one-line diff here.
 *
 * Write access is additionally clamped by the route table: an endpoint group
 * none of whose routes `mutates` only ever gets read grants, whatever this map
 * says (BRIEF decision 2 — the route table is the one source of what a route does).
 */
import { ENDPOINT_GROUPS, routesOfGroup, type EndpointGroup } from '../shared/http/routes';

export type TableAccess = 'none' | 'read' | 'readWrite';
/**
 * `put` = create objects only (no read, no delete); `readPut` = read and
 * create; `readDelete` = read plus cascade deletes; `readWrite` = read, put
 * and delete.
 */
export type BucketAccess = 'none' | 'read' | 'put' | 'readPut' | 'readDelete' | 'readWrite';
export type QueueAccess = 'none' | 'send' | 'consume';

export interface ResourceAccess {
  table: TableAccess;
  sbomBucket: BucketAccess;
  disclosureBucket: BucketAccess;
  /** Read the disclosure signing key from Secrets Manager (BRIEF decision 9). */
  signingSecret: boolean;
  /** The async scan queue; only granted when the queue exists (see function-catalog.ts). */
  scanQueue: QueueAccess;
}

const nothing: ResourceAccess = { table: 'none', sbomBucket: 'none', disclosureBucket: 'none', signingSecret: false, scanQueue: 'none' };

/** The explicit map: one line per endpoint group. */
export const GROUP_ACCESS: Record<EndpointGroup, ResourceAccess> = {
  // Deleting a product removes everything under it, SBOM files included (spec: DELETE /api/products/{productId}).
  products: { ...nothing, table: 'readWrite', sbomBucket: 'readDelete' },
  releases: { ...nothing, table: 'readWrite' },
  // Upload stores the raw file (and deletes it again if the upload fails or is too large),
  // download streams it back, and every upload enqueues a scan (shared/scans/scan-dispatch.ts).
  sboms: { ...nothing, table: 'readWrite', sbomBucket: 'readWrite', scanQueue: 'send' },
  // A scan runs synchronously: it reads the stored component inventory and the
  // corpus items spilled to S3, and writes findings.
  scans: { ...nothing, table: 'readWrite', sbomBucket: 'read' },
  dispositions: { ...nothing, table: 'readWrite' },
  // Publish writes the immutable snapshot (create only: Object Lock keeps it) and signs it.
  vex: { ...nothing, table: 'readWrite', sbomBucket: 'read', disclosureBucket: 'put', signingSecret: true },
  // Public and read-only: reads the snapshot bytes and verifies the HMAC.
  disclosures: { ...nothing, table: 'read', disclosureBucket: 'read', signingSecret: true },
  compliance: { ...nothing, table: 'read' },
  audit: { ...nothing, table: 'read' },
  settings: { ...nothing, table: 'readWrite' },
  // Renders the OpenAPI document from the route table; touches no data.
  openapi: nothing,
};

/** The authorizer looks keys up by hash; it never writes (BRIEF decision 6). */
export const AUTHORIZER_ACCESS: ResourceAccess = { ...nothing, table: 'read' };

/**
 * Background jobs (created only once their handlers exist). The scan worker's
 * scheduled recovery sweep deletes the files of uploads that never got their
 * SBOM item and of expired pre-signed sessions (shared/sboms/sboms.ts `sweep`).
 */
export const SCAN_WORKER_ACCESS: ResourceAccess = { ...nothing, table: 'readWrite', sbomBucket: 'readDelete', scanQueue: 'consume' };
/** Corpus items too large for DynamoDB spill to the SBOM bucket (shared/corpus/corpus-store.ts); re-imports read them back. */
export const CORPUS_REFRESH_ACCESS: ResourceAccess = { ...nothing, table: 'readWrite', sbomBucket: 'readPut' };

const readOnlyBucket: Record<BucketAccess, BucketAccess> = {
  none: 'none',
  read: 'read',
  put: 'none',
  readPut: 'read',
  readWrite: 'read',
  readDelete: 'read',
};

/** Whether any route of the group writes. */
export function groupMutates(group: EndpointGroup): boolean {
  return routesOfGroup(group).some((route) => route.mutates);
}

/** Downgrade every write grant to its read-only counterpart. */
export function readOnly(access: ResourceAccess): ResourceAccess {
  return {
    table: access.table === 'none' ? 'none' : 'read',
    sbomBucket: readOnlyBucket[access.sbomBucket],
    disclosureBucket: readOnlyBucket[access.disclosureBucket],
    signingSecret: access.signingSecret,
    scanQueue: 'none',
  };
}

/** The grants a group's Lambda actually receives: the map, clamped by the route table. */
export function effectiveGroupAccess(group: EndpointGroup): ResourceAccess {
  const declared = GROUP_ACCESS[group];
  return groupMutates(group) ? declared : readOnly(declared);
}

export function readOnlyGroups(): EndpointGroup[] {
  return ENDPOINT_GROUPS.filter((group) => !groupMutates(group));
}
