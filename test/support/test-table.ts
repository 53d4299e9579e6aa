/** A bare pk/sk table for the embedded engine's own tests (the service's table comes from shared/service/data/table-definition.ts). */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export function createKeyValueTableCommand(name: string): CreateTableCommand {
  return new CreateTableCommand({
    TableName: name,
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

/** The same table with one global index on `gsi1pk`/`gsi1sk` (projection ALL), as the service's table has. */
export function createIndexedTableCommand(name: string): CreateTableCommand {
  return new CreateTableCommand({
    TableName: name,
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
      { AttributeName: 'gsi1sk', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'gsi1',
        KeySchema: [
          { AttributeName: 'gsi1pk', KeyType: 'HASH' },
          { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

/**
 * Creates the table and waits until it is ACTIVE: DynamoDB, and the embedded engine as dynalite does, refuses
 * reads and writes of a table still CREATING, which it is for a moment after CreateTable answers.
 */
export async function createActiveTable(client: DynamoDBClient, command: CreateTableCommand): Promise<void> {
  await client.send(command);
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: command.input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
