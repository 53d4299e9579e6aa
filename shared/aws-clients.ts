/**
 * AWS SDK clients, built once per process. The endpoint is the only thing that
 * differs between AWS and the embedded engines (set through config).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from './config';

let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: S3Client | undefined;

export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { region, dynamoEndpoint } = config();
    const client = new DynamoDBClient({ region, ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}) });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: false },
    });
  }
  return documentClient;
}

export function s3(): S3Client {
  if (!s3Client) {
    const { region, s3Endpoint } = config();
    // Path-style addressing is what S3-compatible engines on loopback understand.
    s3Client = new S3Client({ region, ...(s3Endpoint ? { endpoint: s3Endpoint, forcePathStyle: true } : {}) });
  }
  return s3Client;
}

export function tableName(): string {
  return config().tableName;
}

/** Closes keep-alive sockets (tests and CLI runs end cleanly). */
export function destroyClients(): void {
  documentClient?.destroy();
  s3Client?.destroy();
  documentClient = undefined;
  s3Client = undefined;
}
