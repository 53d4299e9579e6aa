/**
 * Least privilege, as data: what each Lambda may do, action by action. The
 * stack turns these entries into IAM statements, and the infra tests check
 * them against the AWS calls each function's code really made during the
 * integration tests (test/infra/observed-aws-calls.json): every call must be
 * allowed, and every grant must be used by some call or listed in
 * UNOBSERVED_GRANTS with its reason (docs/architecture.md "Permissions that
 * match the code").
 *
 * Write access is additionally clamped by the route table: an endpoint group
 * none of whose routes `mutates` only ever gets read grants, whatever this map
 * says (BRIEF decision 2 — the route table is the one source of what a route does).
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
  /** Read the disclosure signing key from Secrets Manager (BRIEF decision 9). */
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
const noTable: TableAccess = { actions: [], queryIndexes: false };
const noBucket: BucketAccess = { objects: [], list: false };
const nothing: ResourceAccess = {
  table: noTable,
  sbomBucket: noBucket,
  disclosureBucket: noBucket,
  signingSecret: false,
  scanQueue: 'none',
  publisherKey: [],
};

const table = (...actions: TableAction[]): TableAccess => ({ actions, queryIndexes: false });
const objects = (...actions: ObjectAction[]): BucketAccess => ({ objects: actions, list: false });

/*
 * Each list is what the group's code does (test/infra/observed-aws-calls.json):
 * GetItem also covers TransactGetItems, and PutItem / UpdateItem / DeleteItem /
 * ConditionCheckItem the items of its TransactWriteItems (audit entries are puts).
 */

/** The explicit map: one line per endpoint group. */
export const GROUP_ACCESS: Record<EndpointGroup, ResourceAccess> = {
  // Deleting a product walks its collection in batches and lists and removes every object under its prefix (spec: DELETE /api/products/{productId});
  // a list page reads its products by key in one batch (docs/architecture.md "Product list at scale").
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
    // The staging record written before the files is deleted in the SBOM's own transaction (docs/architecture.md "Recovery after a crash").
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
  scans: {
    ...nothing,
    table: table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:BatchWriteItem',
    ),
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

/**
 * The authorizer gets credential hash items (API keys, OIDC-issued tokens, sessions), the trust policy an issued
 * token names (deleting the policy ends its tokens), a session member's login entry and the team's session
 * timeouts; nothing else of any team
 * (BRIEF decisions 6 and 10).
 */
export const AUTHORIZER_ACCESS: ResourceAccess = {
  ...nothing,
  // Sessions: the session item by hash (UpdateItem: its last-seen time, for the idle timeout), the member's login entry
  // and the team's session timeouts.
  table: {
    ...table('dynamodb:GetItem', 'dynamodb:UpdateItem'),
    leadingKeys: [
      'APIKEY_HASH#*',
      'OIDC_TOKEN#*',
      'TEAM#*#TRUST_POLICIES',
      'SESSION#*',
      'MEMBER_LOGIN#*',
      'TEAM#*#SESSION_TIMEOUTS',
    ],
  },
};

/**
 * Background jobs (created only once their handlers exist). The scan worker's
 * scheduled recovery sweep reads the sparse RECOVERY# index, claims owed scans
 * (each scan writes its findings digest), and deletes the files and staging records of uploads that never got their
 * SBOM item (shared/service/sboms/sboms.ts `sweep`).
 */
export const SCAN_WORKER_ACCESS: ResourceAccess = {
  ...nothing,
  // ConditionCheckItem: carried decisions are written on the condition that the release is still unlocked (shared/service/dispositions/carry-over.ts).
  table: {
    ...table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
    ),
    queryIndexes: true,
  },
  sbomBucket: objects('s3:GetObject', 's3:PutObject', 's3:DeleteObject'),
  scanQueue: 'consume',
};
/**
 * Corpus items too large for DynamoDB spill to the SBOM bucket (shared/service/corpus/corpus-store.ts); re-imports
 * read them back. The daily run also settles disposition batches left pending (found through a sparse gsi1
 * partition), with a batch's writes.
 */
export const CORPUS_REFRESH_ACCESS: ResourceAccess = {
  ...nothing,
  table: {
    ...table(
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ),
    queryIndexes: true,
  },
  sbomBucket: objects('s3:GetObject', 's3:PutObject'),
};

/**
 * Grants no AWS call of the integration tests exercises, each with the reason
 * it is still needed. ARN patterns use the placeholders of the observed-call
 * manifest; the infra test fails on an entry that no longer matches a grant.
 */
export interface UnobservedGrant {
  functions: readonly string[];
  actions: readonly string[];
  resource: string;
  reason: string;
}

export const UNOBSERVED_GRANTS: readonly UnobservedGrant[] = [
  {
    functions: ['scans'],
    actions: ['dynamodb:ConditionCheckItem'],
    resource: 'arn:aws:dynamodb:{region}:{account}:table/{table}',
    reason:
      "A scan run through POST /api/cve-scan carries earlier releases' decisions like the scan worker does, in bulk transactions that check the release (shared/service/dispositions/disposition-store.ts `underBulk`); the integration runs carry decisions over only from the upload's scan.",
  },
  {
    functions: ['sboms'],
    actions: ['sqs:SendMessage'],
    resource: 'arn:aws:sqs:{region}:{account}:{scanQueue}',
    reason:
      'Each upload enqueues its scan on AWS; the local runtime has no queue and runs the scan worker in-process (configuration, SCAN_QUEUE_URL unset).',
  },
  {
    functions: ['vex', 'disclosures'],
    actions: ['secretsmanager:GetSecretValue'],
    resource: 'arn:aws:secretsmanager:{region}:{account}:secret:{signingSecret}',
    reason:
      'On AWS the signing key comes from Secrets Manager; local runs take it from DISCLOSURE_SIGNING_KEY (BRIEF decision 9).',
  },
  {
    functions: ['vex', 'settings'],
    actions: ['kms:Encrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS a new publisher private key (first publication, rotation) is sealed under the stack's KMS key; the local runtime seals it with a key file of its data directory (configuration: PUBLISHER_KEY_SEAL_FILE instead of PUBLISHER_KEY_KMS_KEY_ID).",
  },
  {
    functions: ['vex'],
    actions: ['kms:Decrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS publishing opens the sealed publisher key with KMS to sign; locally the data directory's key file opens it (same configuration switch).",
  },
  {
    functions: ['scan-worker'],
    actions: [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueUrl',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ],
    resource: 'arn:aws:sqs:{region}:{account}:{scanQueue}',
    reason:
      'Granted by the SQS event source mapping: the Lambda service polls and deletes the messages for the worker; its code makes no SQS call.',
  },
  {
    functions: ['corpus-refresh'],
    actions: ['s3:GetObject', 's3:PutObject'],
    resource: 'arn:aws:s3:::{sbomBucket}/*',
    reason:
      'Advisories and packages past the DynamoDB item limit spill to S3 and are read back on re-import; the bundled sample corpus the local runtime imports has none that large.',
  },
  {
    functions: [
      'products',
      'releases',
      'sboms',
      'scans',
      'dispositions',
      'vex',
      'compliance',
      'audit',
      'settings',
      'auth',
    ],
    actions: ['sts:AssumeRole', 'sts:TagSession'],
    resource: 'arn:aws:iam::{account}:role/{tenantRole}',
    reason:
      'Each tenant function assumes its own tenant role per team on AWS (TENANT_ROLE_ARN); the local runtime has no STS or IAM, so the variable is unset and the calls never happen.',
  },
  {
    functions: ['*'],
    actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    resource: '*',
    reason:
      'Only with tracing on: the Lambda runtime sends the trace segments, not the function code; X-Ray has no resource-level permissions.',
  },
];

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

/*
 * Tenant roles (docs/architecture.md "Tenant-scoped credentials"). A function
 * whose every route acts for a caller's team does its DynamoDB and S3 work
 * with credentials of its tenant role, assumed per team with the session tag
 * `teamId`: the role's policy allows the function's table and object actions
 * only on that team's partitions and prefixes, plus the global partitions and
 * prefixes the function reads or writes inside a team request (listed below,
 * action by action). Its execution role keeps what is not team data (the
 * signing secret, the scan queue) and may assume its own tenant role.
 */

/** The IAM policy variable of the session tag (shared/service/aws-clients.ts TEAM_SESSION_TAG). Not a template: IAM fills it in. */
export const TEAM_TAG_VARIABLE = '$' + '{aws:PrincipalTag/teamId}';

export interface GlobalPartitionGrant {
  actions: readonly TableAction[];
  /** `dynamodb:LeadingKeys` patterns of global partitions. */
  leadingKeys: readonly string[];
}

export interface GlobalObjectGrant {
  bucket: 'sbomBucket' | 'disclosureBucket';
  actions: readonly ObjectAction[];
  /** Object key prefix, e.g. `corpus/`. */
  prefix: string;
}

export interface TenantAccess {
  /** On the team's partitions (`TEAM#<t>`, `TEAM#<t>#…`) and, with queryIndexes, the GSIs keyed the same way. */
  table: Omit<TableAccess, 'leadingKeys'>;
  /** On the team's product files in the SBOM bucket (`teams/<t>/…`); `list` lists only under that prefix. */
  teamFiles: BucketAccess;
  /** On the team's pre-signed upload sessions (`uploads/<t>/…`). */
  uploads: readonly ObjectAction[];
  globalPartitions: readonly GlobalPartitionGrant[];
  globalObjects: readonly GlobalObjectGrant[];
}

interface TeamRequestShape {
  /** Table actions the group uses only on global partitions (kept off the team's). */
  globalOnlyTableActions?: readonly TableAction[];
  /** SBOM-bucket actions on upload sessions; they stay off the team's files unless the group also uses them there. */
  uploads?: readonly ObjectAction[];
  /** SBOM-bucket actions the group uses only on upload sessions. */
  uploadOnlyActions?: readonly ObjectAction[];
  globalPartitions?: readonly GlobalPartitionGrant[];
  globalObjects?: readonly GlobalObjectGrant[];
}

/** How a tenant group's declared access splits between its team's keys and global ones (test/infra/observed-aws-calls.json). */
const TEAM_REQUEST_SHAPES: Partial<Record<EndpointGroup, TeamRequestShape>> = {
  // Pre-signed uploads: the client PUTs to an upload session that completing the upload reads, measures and deletes.
  sboms: { uploads: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] },
  // A scan matches against the shared corpus (batch reads; large items spill to S3).
  scans: {
    globalOnlyTableActions: ['dynamodb:BatchGetItem'],
    globalPartitions: [{ actions: ['dynamodb:BatchGetItem'], leadingKeys: ['CORPUS#*'] }],
    globalObjects: [{ bucket: 'sbomBucket', actions: ['s3:GetObject'], prefix: 'corpus/' }],
  },
  // Publish writes the public disclosure items in the same transaction as the team's document, and the snapshot.
  vex: {
    globalPartitions: [
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], leadingKeys: ['DISCLOSURE_COUNTER'] },
      { actions: ['dynamodb:PutItem'], leadingKeys: ['DISCLOSURE#*', 'DISCLOSED_DOC#*', 'DISCLOSURE_INDEX#*'] },
      // A CSAF publication reads and records the release's revision in the team's CSAF provider (docs/csaf-provider.md).
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], leadingKeys: ['CSAF_PROVIDER#*'] },
    ],
    globalObjects: [{ bucket: 'disclosureBucket', actions: ['s3:GetObject', 's3:PutObject'], prefix: 'disclosures/' }],
  },
  // The CSAF provider setting lives in the provider's partition, and its directory name is claimed deployment-wide.
  // Members' login entries (sign-in and the authorizer find members by verified email, docs/sign-in.md) are written with the member.
  // Self-service keys store and revoke their global hash item (shared/service/identity/api-keys.ts).
  settings: {
    globalPartitions: [
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], leadingKeys: ['CSAF_PROVIDER#*'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], leadingKeys: ['CSAF_DIRECTORY#*'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], leadingKeys: ['MEMBER_LOGIN#*'] },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], leadingKeys: ['APIKEY_HASH#*'] },
    ],
  },
  // The OIDC exchange claims the CI token's jti and stores the issued token's hash (global items found by hash).
  auth: { globalPartitions: [{ actions: ['dynamodb:PutItem'], leadingKeys: ['OIDC_JTI#*', 'OIDC_TOKEN#*'] }] },
  // The attestation report links each published document's disclosure.
  compliance: { globalPartitions: [{ actions: ['dynamodb:GetItem'], leadingKeys: ['DISCLOSURE#*'] }] },
};

/**
 * Groups whose every route acts for one team (a caller's, or the team a public route's body names,
 * `teamFromBody`) and that touch data: they get a tenant role.
 */
export function isTenantGroup(group: EndpointGroup): boolean {
  const access = effectiveGroupAccess(group);
  const touchesData =
    usesTable(access) || access.sbomBucket.objects.length > 0 || access.disclosureBucket.objects.length > 0;
  return touchesData && routesOfGroup(group).every((route) => route.scope !== null || route.teamFromBody === true);
}

/** The tenant role of a group: its declared table and SBOM-bucket access, on the team's own keys, plus its global grants. */
export function tenantAccessOf(group: EndpointGroup): TenantAccess {
  const access = effectiveGroupAccess(group);
  const shape = TEAM_REQUEST_SHAPES[group] ?? {};
  const not =
    (excluded: readonly string[] = []) =>
    (action: string) =>
      !excluded.includes(action);
  return {
    table: {
      actions: access.table.actions.filter(not(shape.globalOnlyTableActions)),
      queryIndexes: access.table.queryIndexes,
    },
    teamFiles: {
      objects: access.sbomBucket.objects.filter(not(shape.uploadOnlyActions)),
      list: access.sbomBucket.list,
    },
    uploads: shape.uploads ?? [],
    globalPartitions: shape.globalPartitions ?? [],
    globalObjects: shape.globalObjects ?? [],
  };
}

/** The execution role of a tenant group: everything but team data, which its tenant role does. */
export function executionAccessOfTenantGroup(group: EndpointGroup): ResourceAccess {
  return { ...effectiveGroupAccess(group), table: noTable, sbomBucket: noBucket, disclosureBucket: noBucket };
}
