/**
 * Points this process at the embedded engines: the standard AWS SDK endpoint
 * variables plus the resource names. Must run before shared/config is first read.
 */
import { bucketDefinitions, tableDefinition } from '../data/table-definition';

export function applyLocalEnvironment(endpoints: { dynamoEndpoint: string; s3Endpoint: string }): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints.dynamoEndpoint;
  process.env.AWS_ENDPOINT_URL_S3 = endpoints.s3Endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  // The embedded engines accept any credentials; the SDK insists on some.
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  process.env.TABLE_NAME ??= tableDefinition.localTableName;
  process.env.SBOM_BUCKET ??= bucketDefinitions.sbom.localBucketName;
  process.env.DISCLOSURE_BUCKET ??= bucketDefinitions.disclosure.localBucketName;
}
