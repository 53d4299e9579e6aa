/**
 * Tenant roles (docs/architecture/request-path.md "Tenant-scoped credentials"). A function
 * whose every route acts for a caller's team does its DynamoDB and S3 work
 * with credentials of its tenant role, assumed per team with the session tag
 * `teamId`: the role's policy allows the function's table and object actions
 * only on that team's partitions and prefixes, plus the global partitions and
 * prefixes the function reads or writes inside a team request (listed below,
 * action by action). Its execution role keeps what is not team data (the
 * signing secret, the scan queue) and may assume its own tenant role. lib/tenant-roles.ts turns
 * these entries into the roles.
 */
import { routesOfGroup, type EndpointGroup } from '../shared/service/http/routes';
import {
  effectiveGroupAccess,
  noBucket,
  noTable,
  usesTable,
  type BucketAccess,
  type ObjectAction,
  type ResourceAccess,
  type TableAccess,
  type TableAction,
} from './permissions';

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
  // Deleting an SBOM removes its package-index entries (global partitions, team id in the sort key).
  sboms: {
    uploads: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
    globalPartitions: [{ actions: ['dynamodb:BatchWriteItem'], leadingKeys: ['WATCH#*'] }],
  },
  // A scan matches against the shared corpus (batch reads; large items spill to S3) and writes the SBOM's
  // package-index entries, reading first which shared presence items are stored; the components question
  // queries the entries (the team id in the sort-key condition).
  scans: {
    globalPartitions: [
      { actions: ['dynamodb:BatchGetItem'], leadingKeys: ['CORPUS#*'] },
      { actions: ['dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'], leadingKeys: ['WATCH#*'] },
    ],
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
  // Marking a vulnerability exploited widens its id through the corpus's alias and advisory items.
  cra: {
    globalOnlyTableActions: ['dynamodb:BatchGetItem'],
    globalPartitions: [{ actions: ['dynamodb:BatchGetItem'], leadingKeys: ['CORPUS#*'] }],
  },
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
