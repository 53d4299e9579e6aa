/**
 * The single table and the two buckets, declared once. The CDK stack, the
 * embedded engines' bootstrap and the data modules all read these names, so
 * a key attribute or index cannot drift between AWS and local runs.
 */
export const tableDefinition = {
  /** Default physical name used locally; on AWS the stack passes TABLE_NAME. */
  localTableName: 'vexdesk',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Global secondary indexes, all with string keys and ALL projection. */
  globalIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
  /** Attribute that DynamoDB TTL reads (epoch seconds); used by short-lived items such as upload sessions. */
  timeToLiveAttribute: 'expiresAtEpoch',
} as const;

export type GlobalIndexName = (typeof tableDefinition.globalIndexes)[number]['indexName'];
export type GlobalIndex = (typeof tableDefinition.globalIndexes)[number];

/** The global index of that name, with its key attributes. */
export function globalIndex(indexName: GlobalIndexName): GlobalIndex {
  const index = tableDefinition.globalIndexes.find((candidate) => candidate.indexName === indexName);
  if (!index) throw new Error(`Unknown index ${indexName}`);
  return index;
}

export const bucketDefinitions = {
  /** Raw SBOM files, kept byte for byte; versioned on AWS. */
  sbom: { localBucketName: 'vexdesk-sboms' },
  /** Immutable disclosure snapshots; Object Lock (compliance mode) on AWS. */
  disclosure: { localBucketName: 'vexdesk-disclosures' },
  /** Large advisories that do not fit a DynamoDB item (400 KB). */
} as const;
