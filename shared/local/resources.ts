/**
 * Creates the table and buckets in the embedded engines from the same
 * definitions the CDK stack uses (shared/service/data/table-definition.ts).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { dynamo } from '../service/aws-clients';
import { createBucket, headBucket } from '../service/aws-s3';
import { config } from '../service/config';
import { tableDefinition } from '../service/data/table-definition';

export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, globalIndexes } = tableDefinition;
  const attributes = [partitionKey, sortKey, ...globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: globalIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

async function waitForTable(tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const { Table } = await dynamo().send(new DescribeTableCommand({ TableName: tableName }));
    const indexesReady = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesReady) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE`);
}

export async function ensureLocalResources(): Promise<void> {
  const { tableName, sbomBucket, disclosureBucket } = config();
  try {
    await dynamo().send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await dynamo().send(new CreateTableCommand(createTableInput(tableName)));
  }
  await waitForTable(tableName);
  for (const bucket of [sbomBucket, disclosureBucket]) {
    try {
      await headBucket({ Bucket: bucket });
    } catch {
      // Not found, or a transient HeadBucket failure under load: creating an existing bucket is then no error.
      await createBucket({ Bucket: bucket }).catch((error: unknown) => {
        if (
          !(
            error instanceof Error &&
            (error.name === 'BucketAlreadyOwnedByYou' || error.name === 'BucketAlreadyExists')
          )
        )
          throw error;
      });
    }
  }
}
