/**
 * AWS SDK clients, built once per process and only here (every SDK call of
 * the functions goes through one of these, so shared/aws-call-log.ts sees it).
 * The endpoint is the only thing that differs between AWS and the embedded
 * engines (set through config).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { recordAwsCalls } from './aws-call-log';
import { config } from './config';

let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: S3Client | undefined;
let sqsClient: SQSClient | undefined;
let secretsClient: SecretsManagerClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { region, dynamoEndpoint } = config();
    const client = new DynamoDBClient({ region, ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}) });
    // The document client shares this middleware stack, so its commands are recorded too.
    recordAwsCalls(client, 'dynamodb');
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
    recordAwsCalls(s3Client, 's3');
  }
  return s3Client;
}

export function sqs(): SQSClient {
  if (!sqsClient) {
    sqsClient = new SQSClient({ region: config().region });
    recordAwsCalls(sqsClient, 'sqs');
  }
  return sqsClient;
}

export function secretsManager(): SecretsManagerClient {
  if (!secretsClient) {
    secretsClient = new SecretsManagerClient({ region: config().region });
    recordAwsCalls(secretsClient, 'secretsmanager');
  }
  return secretsClient;
}

export function tableName(): string {
  return config().tableName;
}

/** Closes keep-alive sockets (tests and CLI runs end cleanly). */
export function destroyClients(): void {
  for (const client of [documentClient, s3Client, sqsClient, secretsClient]) client?.destroy();
  documentClient = undefined;
  s3Client = undefined;
  sqsClient = undefined;
  secretsClient = undefined;
}
