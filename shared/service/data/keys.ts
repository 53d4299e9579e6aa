/**
 * Every key of the single table, and every S3 object key, is built here and nowhere else: in the
 * family modules of keys/, joined into the one `keys` object.
 *
 * Layout (see docs/architecture/data-layout.md for the access patterns):
 * - team partition `TEAM#<teamId>`: the team, members, service accounts, API keys,
 *   products and slug claims;
 * - id pointers, one partition each (`TEAM#<teamId>#ID#<uuid>`), that resolve a
 *   public id to the item that holds it (a scan writes thousands at once: in the
 *   team partition they throttled on AWS, docs/architecture/data-layout.md "Partition load");
 * - product collection `TEAM#<teamId>#PRODUCT#<productId>`: everything under a
 *   product (releases, SBOMs, findings, dispositions, VEX documents, approvals),
 *   so a product delete walks one item collection;
 * - audit partitions `TEAM#<teamId>#AUDIT#<shard>` (AUDIT_SHARDS of them, the
 *   shard from a hash of the entry id), sorted by time, with GSIs by entity type,
 *   action and both, sharded the same way; readers merge the shards in time order;
 * - event partitions `TEAM#<teamId>#EVENTS#<shard>` (EVENT_SHARDS of them, the shard from a hash
 *   of the event id), sorted by `<occurredAt>#<id>`, retained 90 days by the table's TTL;
 * - `TEAM#<teamId>#NOTIFY_CHANNELS`, `#NOTIFY_RULES`, `#NOTIFY_DELIVERIES#<shard>`, `#NOTIFY_DIGEST#<rule>`:
 *   notifications (docs/notifications.md), with the global sparse outbox (gsi1) and due-attempt (gsi3) indexes;
 * - `TEAM#<teamId>#TRUST_POLICIES`: the team's OIDC trust policies;
 * - `TEAM#<teamId>#SESSION_TIMEOUTS`: the team's browser-session timeouts (read by the authorizer);
 * - `TEAM#<teamId>#PUBLISHER_KEYS`: the team's public publisher keys (read by the public disclosures
 *   function); their sealed private halves stay in the team partition;
 * - global partitions for API key and issued-token hashes, used OIDC token ids, member logins by email,
 *   browser sessions and sign-in flows by hash, corpus data and public disclosures;
 * - the watch index `WATCH#PKG#<package>#<shard>` (global, team id first in the sort key): which SBOMs
 *   contain a package;
 * - `TEAM#<teamId>#CRA`: the team's CRA Article 14 cases and their drafts; live cases are also in the sparse
 *   gsi1 partition `CRA#OPEN`, which the deadline check reads.
 */
import { auditKeys } from './keys/audit';
import { corpusKeys } from './keys/corpus';
import { craKeys } from './keys/cra';
import { disclosureKeys } from './keys/disclosures';
import { eventKeys } from './keys/events';
import { dispositionKeys } from './keys/dispositions';
import { migrationKeys } from './keys/migrations';
import { notificationKeys } from './keys/notifications';
import { productKeys } from './keys/products';
import { sbomKeys } from './keys/sboms';
import { teamKeys } from './keys/teams';
import { vexKeys } from './keys/vex';
import { watchKeys } from './keys/watch';

export type { Key } from './keys/partitions';

export const keys = {
  ...teamKeys,
  ...productKeys,
  ...sbomKeys,
  ...dispositionKeys,
  ...vexKeys,
  ...disclosureKeys,
  ...auditKeys,
  ...eventKeys,
  ...corpusKeys,
  ...migrationKeys,
  ...watchKeys,
  ...craKeys,
  ...notificationKeys,
} as const;
