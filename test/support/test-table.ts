/** A bare pk/sk table for the embedded engine's own tests (the service's table comes from shared/data/table-definition.ts). */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';

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
