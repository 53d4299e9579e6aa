/**
 * Least privilege, as data: what each Lambda may do, action by action. The
 * stack turns these entries into IAM statements, and the infra tests check
 * them against the AWS calls each function's code really made during the
 * integration tests (test/infra/observed-aws-calls.json): every call must be
 * allowed, and every grant must be used by some call or listed in
 * UNOBSERVED_GRANTS (lib/unobserved-grants.ts) with its reason
 * (docs/architecture/request-path.md "Permissions that match the code"). How a function acting
 * for a team splits this access between its roles: lib/tenant-access.ts.
 *
 * Write access is additionally clamped by the route table: an endpoint group
 * none of whose routes `mutates` only ever gets read grants, whatever this map
 * says (the route table is the one source of what a route does).
 */
import { ENDPOINT_GROUPS, routesOfGroup, type EndpointGroup } from '../shared/service/http/routes';

/**
 * DynamoDB actions on the table's items. A transaction needs the action of
 * each item kind it holds (Put → PutItem, ConditionCheck → ConditionCheckItem;
 * TransactGetItems → GetItem): IAM has no TransactWriteItems action.
 */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:Query'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:BatchWriteItem';

export type ObjectAction = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';
export type QueueAccess = 'none' | 'send' | 'consume';

export interface TableAccess {
  /** Actions on the table itself. */
  actions: readonly TableAction[];
  /** Query through the table's GSIs (the audit export; the recovery sweeps through their sparse indexes). */
  queryIndexes: boolean;
  /**
   * `dynamodb:LeadingKeys` patterns (StringLike): the only partition keys the
   * function may read or write. Absent: any key of the table.
   */
  leadingKeys?: readonly string[];
}

export interface BucketAccess {
  /** Object-level actions on every object of the bucket, listed one by one. */
  objects: readonly ObjectAction[];
  /** s3:ListBucket on the bucket: listing a prefix (the cascading product delete). */
  list: boolean;
}

export interface ResourceAccess {
  table: TableAccess;
  sbomBucket: BucketAccess;
  disclosureBucket: BucketAccess;
  /** Read the disclosure signing key from Secrets Manager. */
  signingSecret: boolean;
  /** The async scan queue; only granted when the queue exists (see function-catalog.ts). */
  scanQueue: QueueAccess;
  /**
   * The KMS key sealing the teams' publisher private keys (shared/service/disclosures/key-vault.ts):
   * Encrypt seals a new key (first need, rotation), Decrypt opens one to sign.
   */
  publisherKey: readonly PublisherKeyAction[];
}

export type PublisherKeyAction = 'kms:Encrypt' | 'kms:Decrypt';

const READ_ACTIONS: readonly TableAction[] = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];
export const noTable: TableAccess = { actions: [], queryIndexes: false };
export const noBucket: BucketAccess = { objects: [], list: false };
export const nothing: ResourceAccess = {
  table: noTable,
  sbomBucket: noBucket,
  disclosureBucket: noBucket,
  signingSecret: false,
  scanQueue: 'none',
  publisherKey: [],
};

export const table = (...actions: TableAction[]): TableAccess => ({ actions, queryIndexes: false });
export const objects = (...actions: ObjectAction[]): BucketAccess => ({ objects: actions, list: false });

/*
 * Each list is what the group's code does (test/infra/observed-aws-calls.json):
 * GetItem also covers TransactGetItems, and PutItem / UpdateItem / DeleteItem /
 * ConditionCheckItem the items of its TransactWriteItems (audit entries are puts).
 */

/** The explicit map: one line per endpoint group. */
export const GROUP_ACCESS: Record<EndpointGroup, ResourceAccess> = {
  // Deleting a product walks its collection in batches and lists and removes every object under its prefix (spec: DELETE /api/products/{productId});
  // a list page reads its products by key in one batch (docs/architecture/lists-and-caches.md "Product list at scale").
  products: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ),
    sbomBucket: { objects: ['s3:DeleteObject'], list: true },
  },
  // Deleting a release walks its items in batches and lists and removes every object under its prefix (docs/api.md "Deleting releases and SBOMs").
  releases: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:BatchWriteItem',
    ),
    sbomBucket: { objects: ['s3:DeleteObject'], list: true },
  },
  // Upload stores the raw file and its parsed inventory (removing what a failed upload left), download streams
  // it back, a pre-signed URL lets the client PUT a large file that completing the upload reads and deletes,
  // and every upload enqueues a scan (shared/service/scans/scan-dispatch.ts). A release's SBOMs are one query (the list, and
  // the duplicate-upload check for SBOMs stored before content claims); deleting an SBOM removes its findings in batches.
  sboms: {
    ...nothing,
    // The staging record written before the files is deleted in the SBOM's own transaction (docs/architecture/background-work.md "Recovery after a crash").
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:BatchWriteItem',
    ),
    sbomBucket: objects('s3:GetObject', 's3:PutObject', 's3:DeleteObject'),
    scanQueue: 'send',
  },
  // A scan runs synchronously: it reads the stored component inventory and the corpus (batch reads, items
  // spilled to S3), marks the SBOM scanning and writes findings in batches, and their digest beside the
  // inventory, which the lists read (shared/service/scans/findings-digest.ts). Listing a release's dispositions
  // first settles a disposition batch left pending (shared/service/dispositions/disposition-batches.ts), with its writes.
  // The portfolio questions (docs/portfolio.md) query the package index and the team's findings by advisory (gsi2)
  // and CVE (gsi3), and read the rows' SBOMs and releases by key in batches.
  scans: {
    ...nothing,
    table: {
      ...table(
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:BatchWriteItem',
      ),
      queryIndexes: true,
    },
    sbomBucket: objects('s3:GetObject', 's3:PutObject'),
  },
  // Batches record their intent, mark chunks applied on it, delete it at the end and undo chunks conditionally.
  dispositions: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ),
  },
  // Generating a document stores its content and generation input in the SBOM bucket and reads them back;
  // publish writes the immutable snapshot (create only: Object Lock keeps it), reads it back when a retry
  // finds it already stored, and signs it: HMAC, and with the team's publisher key (generated and sealed on first need).
  vex: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ),
    sbomBucket: objects('s3:GetObject', 's3:PutObject'),
    disclosureBucket: objects('s3:GetObject', 's3:PutObject'),
    signingSecret: true,
    publisherKey: ['kms:Encrypt', 'kms:Decrypt'],
  },
  // Public and read-only: only the disclosure and CSAF provider partitions and the teams' public publisher keys (never
  // other team items), the snapshot and its files, the HMAC key. No KMS: verifying needs only the public keys.
  disclosures: {
    ...nothing,
    table: {
      ...table('dynamodb:GetItem', 'dynamodb:Query'),
      leadingKeys: [
        'DISCLOSURE#*',
        'DISCLOSED_DOC#*',
        'DISCLOSURE_INDEX#*',
        'DISCLOSURE_COUNTER',
        'CSAF_PROVIDER#*',
        'CSAF_DIRECTORY#*',
        'TEAM#*#PUBLISHER_KEYS',
      ],
    },
    disclosureBucket: objects('s3:GetObject'),
    signingSecret: true,
  },
  // The report reads each SBOM's stored component inventory.
  compliance: { ...nothing, table: table('dynamodb:GetItem', 'dynamodb:Query'), sbomBucket: objects('s3:GetObject') },
  // The export is one range query per audit shard on the table, or on a GSI when filtered by entity type or action.
  audit: { ...nothing, table: { ...table('dynamodb:Query'), queryIndexes: true } },
  // The stream is one range query per event shard of the team's partitions, newest first.
  events: { ...nothing, table: table('dynamodb:Query') },
  // CRA cases: the team's CRA partition (cases written whole in a transaction with their audit entry and draft
  // versions); marking a vulnerability exploited finds the team's findings through the finding indexes (gsi2,
  // gsi3) after widening the id through the corpus's alias items (BatchGetItem, global), and reads their releases.
  // Informing users drafts the CSAF advisory of each affected release as the VEX workflow's generate does: it reads
  // the release's findings digests and stores the document's content and input in the SBOM bucket, and creates the
  // document on the condition that its product exists.
  cra: {
    ...nothing,
    table: {
      ...table(
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
      ),
      queryIndexes: true,
    },
    sbomBucket: objects('s3:GetObject', 's3:PutObject'),
  },
  // Notification channels, rules and the delivery log (a Query per log shard on gsi2). Channel URLs and secrets are
  // sealed on write and opened to send a test; a rule's product filter is checked by a batch read of the products;
  // a test delivery is claimed and recorded with single-item updates (its audit entry and a redelivery's are written
  // after them, a batch write); a rule is written on the condition that its
  // channel exists.
  notifications: {
    ...nothing,
    table: {
      ...table(
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:BatchWriteItem',
      ),
      queryIndexes: true,
    },
    publisherKey: ['kms:Encrypt', 'kms:Decrypt'],
  },
  // Trust policies: listed by a Query of their partition, deleted (with the audit entry) in a transaction.
  // Publisher key rotation seals the new private key (never opens one). ConditionCheckItem: a change that takes
  // settings.manage from a member checks, in the same transaction, that another member still holds it.
  settings: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ),
    publisherKey: ['kms:Encrypt'],
  },
  // Public OIDC exchange (docs/oidc.md): reads the named team's trust policies, then in one transaction claims the
  // CI token's jti, stores the issued token's hash and audits the exchange in that team's log.
  // It acts for the team the request names (route `teamFromBody`), so its tenant role confines those calls to that team.
  auth: { ...nothing, table: table('dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem') },
  // Public browser sign-in (docs/sign-in.md): the single-use flow items, members' login entries by verified email,
  // session items by hash, and the sign-in/sign-out entries of the member's team's audit log. `TEAM#*` is wider than
  // the audit shards it writes (`TEAM#*#AUDIT#*`): the AWS call log records team partitions as `TEAM#`, so the narrower
  // grant could not be checked against the code; narrowing it needs the log to keep the audit partitions' shape.
  signin: {
    ...nothing,
    table: {
      ...table('dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'),
      leadingKeys: ['SIGNIN#*', 'MEMBER_LOGIN#*', 'SESSION#*', 'TEAM#*'],
    },
  },
  // Renders the OpenAPI document from the route table; touches no data.
  openapi: nothing,
};

const READ_ONLY_OBJECTS: readonly ObjectAction[] = ['s3:GetObject'];

/** Whether any route of the group writes. */
export function groupMutates(group: EndpointGroup): boolean {
  return routesOfGroup(group).some((route) => route.mutates);
}

/** Downgrade every write grant to nothing: only reads stay. */
export function readOnly(access: ResourceAccess): ResourceAccess {
  const bucket = (granted: BucketAccess): BucketAccess => ({
    objects: granted.objects.filter((action) => READ_ONLY_OBJECTS.includes(action)),
    list: granted.list,
  });
  return {
    table: { ...access.table, actions: access.table.actions.filter((action) => READ_ACTIONS.includes(action)) },
    sbomBucket: bucket(access.sbomBucket),
    disclosureBucket: bucket(access.disclosureBucket),
    signingSecret: access.signingSecret,
    scanQueue: 'none',
    // Opening a key to sign is a read; sealing a new one belongs to a write.
    publisherKey: access.publisherKey.filter((action) => action === 'kms:Decrypt'),
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

/** Whether the access touches the table at all. */
export function usesTable(access: ResourceAccess): boolean {
  return access.table.actions.length > 0 || access.table.queryIndexes;
}
