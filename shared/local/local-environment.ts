/**
 * Points this process at the embedded engines: the standard AWS SDK endpoint and
 * credential variables (the data directory's key pair, the only one the engines accept)
 * plus the resource names and the public base URL. Must run before shared/config is first read.
 */
import { join } from 'node:path';
import { useDynamoTransport } from '../service/aws-clients';
import { bucketDefinitions, tableDefinition } from '../service/data/table-definition';
import type { EngineAccess } from './engines';

/**
 * `publicBaseUrl`: the origin generated documents name; `npm start` passes its listening
 * address. Other local tools (admin CLI, benches) default to the address `npm start` listens
 * on by default. An explicit PUBLIC_BASE_URL in the environment always wins.
 */
export function applyLocalEnvironment(
  engines: EngineAccess,
  publicBaseUrl = `http://127.0.0.1:${process.env.PORT || 3000}`,
): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = engines.dynamoEndpoint;
  process.env.AWS_ENDPOINT_URL_S3 = engines.s3Endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  // Replaces whatever credentials the shell had: the engines accept no others, and a
  // session token or profile of a real account must not travel with local requests.
  process.env.AWS_ACCESS_KEY_ID = engines.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = engines.credentials.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.TABLE_NAME ??= tableDefinition.localTableName;
  process.env.SBOM_BUCKET ??= bucketDefinitions.sbom.localBucketName;
  process.env.DISCLOSURE_BUCKET ??= bucketDefinitions.disclosure.localBucketName;
  process.env.PUBLIC_BASE_URL ||= publicBaseUrl;
  // The local stand-in for the stack's KMS key (shared/service/disclosures/key-vault.ts): a file of the data
  // directory, 0600 like credentials.json, so the server and the admin CLI open the same sealed keys.
  if (engines.dataDir) process.env.PUBLISHER_KEY_SEAL_FILE ??= join(engines.dataDir, 'publisher-key-seal.key');
  // Notification e-mails land here as .eml files unless VEXDESK_SMTP_URL names a server.
  if (engines.dataDir) process.env.NOTIFY_OUTBOX_DIR ??= join(engines.dataDir, 'outbox');
  // Engines on this very thread answer its DynamoDB calls without the loopback hop.
  useDynamoTransport(engines.dynamoTransport);
}
