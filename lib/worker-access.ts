/**
 * What the functions that serve no route may touch: the authorizer and the background workers (scan worker,
 * corpus refresh, notification worker). The endpoint groups' map and the helpers are in lib/permissions.ts.
 */
import { nothing, objects, table, type ResourceAccess } from './permissions';

/**
 * The authorizer gets credential hash items (API keys, OIDC-issued tokens, sessions), the trust policy an issued
 * token names (deleting the policy ends its tokens), a session member's login entry and the team's session
 * timeouts; nothing else of any team.
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
 * Corpus items too large for DynamoDB spill to the SBOM bucket (corpus-store.ts); re-imports read them back, import
 * units read a staged all.zip there by range; a feed's lease is a conditional put. After its imports the run
 * re-evaluates the watched SBOMs (shared/service/watch/): it queries the change journal, the package index and the
 * CVE index of older stores, reads the CVEs' alias items, each SBOM's inventory and findings digest, writes the
 * findings, their events and a new digest. For each team whose findings changed it then stores the day's dashboard
 * counts (shared/service/watch/dashboard.ts): the team's release and SBOM indexes (gsi1, gsi2), products, release
 * items and decisions read, one snapshot item written in a transaction.
 * It also settles disposition batches left pending (found through a sparse gsi1 partition), with a batch's writes.
 */
export const CORPUS_REFRESH_ACCESS: ResourceAccess = {
  ...nothing,
  table: {
    ...table(
      'dynamodb:GetItem',
      'dynamodb:Query',
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
 * The notification worker (shared/service/notifications/dispatch.ts), every minute: reads the outbox, digest and
 * due-attempt indexes (gsi1, gsi3) across teams, the teams' rules, channels and releases, writes deliveries and digest
 * entries, clears outbox entries and records attempts (UpdateItem), deletes sent digest entries in batches, and opens
 * channel secrets to deliver. Disabling a failing channel writes its audit entry and event in one transaction.
 */
export const NOTIFY_WORKER_ACCESS: ResourceAccess = {
  ...nothing,
  table: {
    ...table(
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:BatchWriteItem',
    ),
    queryIndexes: true,
  },
  publisherKey: ['kms:Decrypt'],
};
