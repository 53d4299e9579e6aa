/**
 * Records which AWS calls each function's code really makes, as the IAM
 * permission each call needs (docs/architecture/request-path.md "Permissions that match the
 * code"). With `VEXDESK_AWS_CALL_LOG=<file>` set, every SDK client built in
 * shared/service/aws-clients.ts appends one JSON line per distinct call: the function
 * whose code issued it, the SDK operation, the IAM action, the resource as an
 * ARN pattern (ids replaced by `{id}`) and, for DynamoDB, the partition-key
 * prefix the item or query touches (what a `dynamodb:LeadingKeys` condition
 * sees). The integration tests collect these lines into
 * test/infra/observed-aws-calls.json and the infra tests check every function's
 * synthesized policy against it. Unset (as on AWS), no middleware is added.
 */
import { appendFileSync } from 'node:fs';
import { config } from './config';
import { keys } from './data/keys';
import { tableDefinition } from './data/table-definition';
import { currentContext } from './request-context';

export { runAsFunction } from './request-context';

export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsmanager' | 'kms';

export interface AwsCallRecord {
  /** The catalog name of the function whose code made the call (lib/function-catalog.ts). */
  function: string;
  /** SDK operation, e.g. `TransactWriteItems`. */
  command: string;
  /** The IAM action the call needs; a transaction needs one per item kind. */
  action: string;
  /** ARN pattern: `{table}`, `{sbomBucket}`, `{disclosureBucket}`, `{scanQueue}`, `{signingSecret}`, `{region}`, `{account}`, `{id}`. */
  resource: string;
  /** DynamoDB only: the partition key up to and including its first `#` (the whole key when it has none). */
  leadingKey?: string;
  /** S3 listings only: the listed prefix as a layout (what an `s3:prefix` condition sees). */
  prefix?: string;
}

type Permission = Omit<AwsCallRecord, 'function' | 'command'>;

/** A permission with the concrete key it was derived from (what the tenant guard checks). */
type Touch = Permission & { partitionKey?: string; objectKey?: string };

/** The log file, or undefined when recording is off (read once). */
export function awsCallLogFile(): string | undefined {
  return process.env.VEXDESK_AWS_CALL_LOG || undefined;
}

type Values = Record<string, unknown>;
type Input = Values;

function asRecord(value: unknown): Values {
  return value !== null && typeof value === 'object' ? (value as Values) : {};
}

/** A key attribute's string, from the document client's plain value or the low-level `{ S: … }` form. */
function keyString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const wrapped = asRecord(value).S;
  return typeof wrapped === 'string' ? wrapped : undefined;
}

/** The recorded shape of every team's trust-policy partition (`TEAM#{id}#TRUST_POLICIES`). */
const TRUST_POLICY_PARTITION_SHAPE = keys.trustPolicyPrefix('{id}').pk;
const TRUST_POLICY_PARTITION_SUFFIX = TRUST_POLICY_PARTITION_SHAPE.slice('TEAM#{id}'.length);

/** Likewise the public publisher-key partitions (`TEAM#{id}#PUBLISHER_KEYS`), the one team partition the public disclosures function reads. */
const PUBLISHER_KEY_PARTITION_SHAPE = keys.publisherKeyPrefix('{id}').pk;
const PUBLISHER_KEY_PARTITION_SUFFIX = PUBLISHER_KEY_PARTITION_SHAPE.slice('TEAM#{id}'.length);

/** And the session-timeout partitions (`TEAM#{id}#SESSION_TIMEOUTS`), which the authorizer reads beside trust policies. */
const SESSION_TIMEOUTS_PARTITION_SHAPE = keys.sessionTimeouts('{id}').pk;
const SESSION_TIMEOUTS_PARTITION_SUFFIX = SESSION_TIMEOUTS_PARTITION_SHAPE.slice('TEAM#{id}'.length);

/** Every team's partitions start with this (`TEAM#`). */
const TEAM_PARTITION_PREFIX = keys.teamOwned().partitionPrefix;

export function leadingKeyPrefix(partitionKey: string): string {
  const hash = partitionKey.indexOf('#');
  if (!partitionKey.startsWith(TEAM_PARTITION_PREFIX)) return hash < 0 ? partitionKey : partitionKey.slice(0, hash + 1);
  // The authorizer is granted trust-policy partitions alone (`TEAM#*#TRUST_POLICIES`, docs/oidc.md): the log keeps their kind.
  if (partitionKey.endsWith(TRUST_POLICY_PARTITION_SUFFIX)) return TRUST_POLICY_PARTITION_SHAPE;
  if (partitionKey.endsWith(PUBLISHER_KEY_PARTITION_SUFFIX)) return PUBLISHER_KEY_PARTITION_SHAPE;
  if (partitionKey.endsWith(SESSION_TIMEOUTS_PARTITION_SUFFIX)) return SESSION_TIMEOUTS_PARTITION_SHAPE;
  return partitionKey.slice(0, hash + 1);
}

const PLACEHOLDER = 'VEXDESKPLACEHOLDER';

interface ObjectKeyShape {
  shape: string;
  pattern: RegExp;
  literalLength: number;
}

let objectKeyShapes: ObjectKeyShape[] | undefined;

/**
 * The S3 key layouts, taken from the key builders themselves (every
 * `keys.*Object`), so a new kind of object needs no edit here.
 */
function shapes(): ObjectKeyShape[] {
  objectKeyShapes ??= Object.entries(keys)
    .filter(([name]) => name.endsWith('Object') || name.endsWith('ObjectsPrefix'))
    .map(([, build]) => {
      const built = (build as (...args: string[]) => string)(
        ...Array.from({ length: build.length }, () => PLACEHOLDER),
      );
      const parts = built.split(PLACEHOLDER);
      return {
        shape: parts.join('{id}'),
        pattern: new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
        literalLength: parts.join('').length,
      };
    });
  return objectKeyShapes;
}

/** A concrete object key → its layout with ids replaced (`teams/{id}/products/{id}/…`); the most specific layout wins. */
export function objectKeyShape(key: string): string {
  const best = shapes()
    .filter((candidate) => candidate.pattern.test(key))
    .sort((a, b) => b.literalLength - a.literalLength)[0];
  // A key built outside shared/service/data/keys.ts: keep its first segment so the record still says where it went.
  return best?.shape ?? `${key.split('/')[0] ?? ''}/{unknown-layout}`;
}

function tableArn(tableName: unknown, indexName?: unknown): string {
  const table = tableName === config().tableName ? '{table}' : String(tableName);
  return `arn:aws:dynamodb:{region}:{account}:table/${table}${typeof indexName === 'string' ? `/index/${indexName}` : ''}`;
}

function bucketName(bucket: unknown): string {
  const { sbomBucket, disclosureBucket } = config();
  if (bucket === sbomBucket) return '{sbomBucket}';
  if (bucket === disclosureBucket) return '{disclosureBucket}';
  return String(bucket);
}

const bucketArn = (bucket: unknown) => `arn:aws:s3:::${bucketName(bucket)}`;
const objectArn = (bucket: unknown, key: unknown) => `${bucketArn(bucket)}/${objectKeyShape(String(key))}`;

/** `resource` is the table's ARN (`tableArn`), made once for a batch's items. */
function itemPermission(action: string, resource: string, item: unknown): Touch {
  const pk = keyString(asRecord(item)[tableDefinition.partitionKey]);
  return {
    action: `dynamodb:${action}`,
    resource,
    ...(pk !== undefined ? { leadingKey: leadingKeyPrefix(pk), partitionKey: pk } : {}),
  };
}

/** The partition-key value a Query's key condition fixes (on the table or on the index it names). */
function queryPartitionKey(input: Input): string | undefined {
  const index = tableDefinition.globalIndexes.find((candidate) => candidate.indexName === input.IndexName);
  const attribute = index ? index.partitionKey : tableDefinition.partitionKey;
  const names = asRecord(input.ExpressionAttributeNames);
  const values = asRecord(input.ExpressionAttributeValues);
  // Split on AND rather than one global regex: a key condition is user-shaped text and the
  // regex form backtracks quadratically (docs/hostile-input.md).
  const condition = typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '';
  for (const part of condition.split(' AND ')) {
    const [left, right] = part.split('=').map((side) => side.trim());
    if (!left || !right?.startsWith(':')) continue;
    const resolved = left.startsWith('#') ? names[left] : left;
    if (resolved === attribute) return keyString(values[right]);
  }
  return undefined;
}

const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

function dynamoPermissions(operation: string, input: Input): Touch[] {
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [itemPermission(operation, tableArn(input.TableName), input.Key)];
    case 'PutItem':
      return [itemPermission(operation, tableArn(input.TableName), input.Item)];
    case 'Query': {
      const pk = queryPartitionKey(input);
      return [
        {
          action: 'dynamodb:Query',
          resource: tableArn(input.TableName, input.IndexName),
          ...(pk !== undefined ? { leadingKey: leadingKeyPrefix(pk), partitionKey: pk } : {}),
        },
      ];
    }
    // IAM checks a transaction item by item, each under its own action (TransactGetItems → GetItem).
    case 'TransactGetItems':
      return ((input.TransactItems as Values[] | undefined) ?? []).map((item) => {
        const get = asRecord(item.Get);
        return itemPermission('GetItem', tableArn(get.TableName), get.Key);
      });
    case 'TransactWriteItems':
      return ((input.TransactItems as Values[] | undefined) ?? []).flatMap((item) =>
        Object.entries(TRANSACT_WRITE_ACTIONS)
          .filter(([kind]) => item[kind] !== undefined)
          .map(([kind, action]) => {
            const request = asRecord(item[kind]);
            return itemPermission(action, tableArn(request.TableName), request.Key ?? request.Item);
          }),
      );
    case 'BatchGetItem':
      return Object.entries(asRecord(input.RequestItems)).flatMap(([table, request]) => {
        const resource = tableArn(table);
        return ((asRecord(request).Keys as unknown[] | undefined) ?? []).map((key) =>
          itemPermission('BatchGetItem', resource, key),
        );
      });
    case 'BatchWriteItem':
      return Object.entries(asRecord(input.RequestItems)).flatMap(([table, requests]) => {
        const resource = tableArn(table);
        return (requests as Values[]).map((request) =>
          itemPermission(
            'BatchWriteItem',
            resource,
            asRecord(request.PutRequest).Item ?? asRecord(request.DeleteRequest).Key,
          ),
        );
      });
    default:
      return [{ action: `dynamodb:${operation}`, resource: tableArn(input.TableName) }];
  }
}

function s3Permissions(operation: string, input: Input): Touch[] {
  const objectKey = typeof input.Key === 'string' ? { objectKey: input.Key } : {};
  switch (operation) {
    // HeadObject needs s3:GetObject; a multipart upload needs s3:PutObject throughout.
    case 'GetObject':
    case 'HeadObject':
      return [{ action: 's3:GetObject', resource: objectArn(input.Bucket, input.Key), ...objectKey }];
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [{ action: 's3:PutObject', resource: objectArn(input.Bucket, input.Key), ...objectKey }];
    case 'DeleteObject':
      return [{ action: 's3:DeleteObject', resource: objectArn(input.Bucket, input.Key), ...objectKey }];
    case 'DeleteObjects':
      return ((asRecord(input.Delete).Objects as Values[] | undefined) ?? []).map((object) => ({
        action: 's3:DeleteObject',
        resource: objectArn(input.Bucket, object.Key),
        objectKey: String(object.Key),
      }));
    case 'ListObjectsV2':
    case 'ListObjects':
    case 'HeadBucket':
      // The listed prefix is what an s3:prefix condition (and the tenant guard) sees.
      return [
        {
          action: 's3:ListBucket',
          resource: bucketArn(input.Bucket),
          ...(typeof input.Prefix === 'string'
            ? { prefix: objectKeyShape(input.Prefix), objectKey: input.Prefix }
            : {}),
        },
      ];
    default:
      return [
        {
          action: `s3:${operation}`,
          resource: typeof input.Key === 'string' ? objectArn(input.Bucket, input.Key) : bucketArn(input.Bucket),
          ...objectKey,
        },
      ];
  }
}

function otherPermissions(service: 'sqs' | 'secretsmanager' | 'kms', operation: string, input: Input): Permission[] {
  if (service === 'kms') {
    const key =
      typeof input.KeyId !== 'string' || input.KeyId === config().publisherKeyKmsKeyId ? '{publisherKey}' : input.KeyId;
    return [{ action: `kms:${operation}`, resource: `arn:aws:kms:{region}:{account}:key/${key}` }];
  }
  if (service === 'sqs') {
    const queue = input.QueueUrl === config().scanQueueUrl ? '{scanQueue}' : String(input.QueueUrl).split('/').pop();
    return [{ action: `sqs:${operation}`, resource: `arn:aws:sqs:{region}:{account}:${queue}` }];
  }
  const secret = input.SecretId === config().signingSecretId ? '{signingSecret}' : String(input.SecretId);
  return [
    { action: `secretsmanager:${operation}`, resource: `arn:aws:secretsmanager:{region}:{account}:secret:${secret}` },
  ];
}

function touchesOf(service: AwsService, commandName: string, input: Input): Touch[] {
  const operation = commandName.replace(/Command$/, '');
  if (service === 'dynamodb') return dynamoPermissions(operation, input);
  if (service === 's3') return s3Permissions(operation, input);
  return otherPermissions(service, operation, input);
}

/** The permission a touch needs: its concrete keys left out. */
const withoutKeys = ({ partitionKey: _pk, objectKey: _key, ...permission }: Touch): Permission => permission;

/** The permissions one SDK call needs. `commandName` is the SDK's (`GetItemCommand`). */
export function permissionsOf(service: AwsService, commandName: string, input: Input): Permission[] {
  return touchesOf(service, commandName, input).map(withoutKeys);
}

/** The concrete partition keys (table and GSI) and S3 object keys or listed prefixes one SDK call touches. */
export function keysTouchedBy(
  service: AwsService,
  commandName: string,
  input: Input,
): { partitionKeys: string[]; objectKeys: string[] } {
  const touches = touchesOf(service, commandName, input);
  return {
    partitionKeys: touches.flatMap((touch) => (touch.partitionKey !== undefined ? [touch.partitionKey] : [])),
    objectKeys: touches.flatMap((touch) => (touch.objectKey !== undefined ? [touch.objectKey] : [])),
  };
}

/** The lines this process recorded, by `recordId`: a batch names its table once per item, and most calls repeat. */
const written = new Set<string>();

/** U+0001 stands for an absent field, so a record without a leading key is not one with an empty one. */
const recordId = (fn: string, command: string, { action, resource, leadingKey, prefix }: Permission) =>
  [fn, command, action, resource, leadingKey ?? '\u0001', prefix ?? '\u0001'].join('\u0000');

/** Appends the records of the touches' permissions not yet recorded. */
function append(file: string, fn: string, command: string, touches: Touch[]): void {
  const lines: string[] = [];
  for (const touch of touches) {
    const id = recordId(fn, command, touch);
    if (written.has(id)) continue;
    written.add(id);
    lines.push(JSON.stringify({ function: fn, command, ...withoutKeys(touch) } satisfies AwsCallRecord));
  }
  if (lines.length === 0) return;
  // Synchronous: a server killed mid-run keeps every line it recorded.
  appendFileSync(file, `${lines.join('\n')}\n`);
}

function isMissingObject(error: unknown): boolean {
  const { name, $metadata } = asRecord(error) as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

type Next = (args: { input: object }) => Promise<unknown>;
type Middleware = (next: Next, context: { commandName?: string }) => Next;
interface ClientWithStack {
  middlewareStack: { add(middleware: never, options: { step: 'initialize'; name: string; priority: 'high' }): void };
}

/**
 * Adds the recording middleware to a client when `VEXDESK_AWS_CALL_LOG` is
 * set. The initialize step sees the command's own input (before the document
 * client marshals it), and runs for pre-signed URLs too: the URL grants what
 * the signer's role may do, so it is recorded as that action.
 */
export function recordAwsCalls(client: ClientWithStack, service: AwsService): void {
  const file = awsCallLogFile();
  if (!file) return;
  const middleware: Middleware = (next, context) => async (args) => {
    const fn = currentContext().function;
    // Calls outside any function (the local bootstrap, the admin CLI, test setup) are nobody's permission.
    if (fn === undefined) return next(args);
    const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
    const input = args.input as Input;
    const record = (touches: Touch[]) => append(file, fn, command, touches);
    record(touchesOf(service, command, input));
    try {
      return await next(args);
    } catch (error) {
      // Without s3:ListBucket a missing key answers 403 instead of 404: code that relies on the 404 needs it.
      if (service === 's3' && (command === 'GetObject' || command === 'HeadObject') && isMissingObject(error)) {
        record([{ action: 's3:ListBucket', resource: bucketArn(input.Bucket) }]);
      }
      throw error;
    }
  };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'vexdeskAwsCallLog', priority: 'high' });
}
