/**
 * Reads what the embedded engines hold for the crash test's team: SBOMs, findings,
 * dispositions with their history, the disposition audit entries, id pointers and
 * the SBOM bucket's objects. Endpoints and credentials come from the project's own
 * helpers (findRunningEngines + applyLocalEnvironment), so a change to how the
 * engines are reached or authenticated is followed here without edits.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { loadConfig } from '../../shared/service/config';
import { keys } from '../../shared/service/data/keys';

type Row = Record<string, unknown>;

export interface StoredSbom {
  id: string;
  productId: string;
  releaseId: string;
  objectKey: string;
  inventoryKey: string;
  fileSize: number;
  scanStatus: string;
  findingCount: number;
}

export interface StoredDisposition {
  id: string;
  vulnerabilityId: string;
  revision: number;
  detail: string | null;
  updatedAt: string;
}

export interface StoredChange {
  at: string;
  changeId: string;
  /** The `detail` this change wrote (the crash test gives every write a unique detail). */
  detailTo: string | null | undefined;
}

export interface StoredAudit {
  action: string;
  /** From the entry's changes (create, update) or its entity name (the batch rollback names the vulnerability there). */
  vulnerabilityId: string;
  timestamp: string;
  detailTo: string | null | undefined;
}

export interface Snapshot {
  products: Set<string>;
  releases: Set<string>;
  sboms: Map<string, StoredSbom>;
  findingsBySbom: Map<string, number>;
  /** By vulnerability id (one disposition per vulnerability). */
  dispositions: Map<string, StoredDisposition>;
  /** By vulnerability id: the history key is built from it. */
  history: Map<string, StoredChange[]>;
  /** Audit entries of entity type `disposition`, by disposition id. */
  audit: Map<string, StoredAudit[]>;
  /** Ids that have an id pointer (`GET /api/<entity>/{id}` resolves through it). */
  pointers: Set<string>;
  /** SBOM bucket objects under the team's prefix: key → size. */
  objects: Map<string, number>;
}

/** Environment names applyLocalEnvironment sets; cleared first so each call reads the current engines. */
const LOCAL_VARIABLES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'TABLE_NAME',
  'SBOM_BUCKET',
  'DISCLOSURE_BUCKET',
];

/** The environment the server's own handlers get for these engines, computed without keeping it in this process. */
function localEnvironmentFor(engines: NonNullable<Awaited<ReturnType<typeof findRunningEngines>>>): NodeJS.ProcessEnv {
  const saved = { ...process.env };
  try {
    for (const name of LOCAL_VARIABLES) delete process.env[name];
    applyLocalEnvironment(engines);
    return { ...process.env };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

export class StoreReader {
  private constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly s3: S3Client,
    private readonly tableName: string,
    private readonly sbomBucket: string,
  ) {}

  static async open(dataDir: string): Promise<StoreReader> {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no running engines found for ${dataDir}`);
    const environment = localEnvironmentFor(engines);
    const settings = loadConfig(environment);
    const credentials = {
      accessKeyId: environment.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
      ...(environment.AWS_SESSION_TOKEN ? { sessionToken: environment.AWS_SESSION_TOKEN } : {}),
    };
    const dynamo = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: settings.region, endpoint: settings.dynamoEndpoint, credentials }),
    );
    const s3 = new S3Client({
      region: settings.region,
      endpoint: settings.s3Endpoint,
      forcePathStyle: true,
      credentials,
    });
    return new StoreReader(dynamo, s3, settings.tableName, settings.sbomBucket);
  }

  close(): void {
    this.dynamo.destroy();
    this.s3.destroy();
  }

  private async query(pk: string, skPrefix?: string, attributes?: string[]): Promise<Row[]> {
    const rows: Row[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const input: QueryCommandInput = {
        TableName: this.tableName,
        ConsistentRead: true,
        KeyConditionExpression: skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk', ...(skPrefix ? { '#sk': 'sk' } : {}) },
        ExpressionAttributeValues: { ':pk': pk, ...(skPrefix ? { ':prefix': skPrefix } : {}) },
        ...(start ? { ExclusiveStartKey: start } : {}),
      };
      if (attributes) {
        input.ProjectionExpression = attributes.map((_name, index) => `#a${index}`).join(', ');
        attributes.forEach((name, index) => {
          input.ExpressionAttributeNames![`#a${index}`] = name;
        });
      }
      const page = await this.dynamo.send(new QueryCommand(input));
      rows.push(...((page.Items ?? []) as Row[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return rows;
  }

  async snapshot(teamId: string): Promise<Snapshot> {
    const snapshot: Snapshot = {
      products: new Set(),
      releases: new Set(),
      sboms: new Map(),
      findingsBySbom: new Map(),
      dispositions: new Map(),
      history: new Map(),
      audit: new Map(),
      pointers: new Set(),
      objects: new Map(),
    };
    const { pk: teamPk, skPrefix: productPrefix } = keys.productPrefix(teamId);
    const team = await this.query(teamPk, undefined, ['sk', 'entity', 'id']);
    for (const row of team) {
      if (row.entity === 'Product' && String(row.sk).startsWith(productPrefix)) snapshot.products.add(String(row.id));
    }
    const productRows = await Promise.all(
      [...snapshot.products].map((productId) =>
        this.query(keys.productCollection(teamId, productId).pk, undefined, [
          'sk',
          'entity',
          'id',
          'productId',
          'releaseId',
          'sbomId',
          'vulnerabilityId',
          'decisionKey',
          'revision',
          'detail',
          'updatedAt',
          'at',
          'changeId',
          'changes',
          'scan',
          'objectKey',
          'inventoryKey',
          'fileSize',
        ]),
      ),
    );
    const findingOfDecision = new Map<string, string>();
    for (const row of productRows.flat()) {
      switch (row.entity) {
        case 'Release':
          snapshot.releases.add(String(row.id));
          break;
        case 'Sbom': {
          const scan = (row.scan ?? {}) as { status?: string; findingCount?: number };
          snapshot.sboms.set(String(row.id), {
            id: String(row.id),
            productId: String(row.productId),
            releaseId: String(row.releaseId),
            objectKey: String(row.objectKey),
            inventoryKey: String(row.inventoryKey),
            fileSize: Number(row.fileSize),
            scanStatus: scan.status ?? 'queued',
            findingCount: Number(scan.findingCount ?? 0),
          });
          break;
        }
        case 'Finding':
          snapshot.findingsBySbom.set(String(row.sbomId), (snapshot.findingsBySbom.get(String(row.sbomId)) ?? 0) + 1);
          break;
        case 'Disposition':
          findingOfDecision.set(String(row.decisionKey), String(row.vulnerabilityId));
          snapshot.dispositions.set(String(row.vulnerabilityId), {
            id: String(row.id),
            vulnerabilityId: String(row.vulnerabilityId),
            revision: Number(row.revision ?? 1),
            detail: (row.detail as string | undefined) ?? null,
            updatedAt: String(row.updatedAt),
          });
          break;
        case 'DispositionChange': {
          // Key: R#<release>#DISPOSITION_HISTORY#<decisionKey>#<at>#<changeId> (shared/service/data/keys.ts); the item does not repeat the key.
          // The disposition sorts before its history (`#` < `_`), so its finding is known here; history alone keeps the key.
          const decisionKey = String(row.sk).split('#DISPOSITION_HISTORY#')[1]?.split('#')[0] ?? '';
          const vulnerabilityId = findingOfDecision.get(decisionKey) ?? decisionKey;
          const changes = (row.changes ?? {}) as Record<string, { to?: unknown }>;
          const list = snapshot.history.get(vulnerabilityId) ?? [];
          list.push({
            at: String(row.at),
            changeId: String(row.changeId),
            detailTo: changes.detail?.to as string | null | undefined,
          });
          snapshot.history.set(vulnerabilityId, list);
          break;
        }
        default:
          break;
      }
    }
    // Each id pointer is its own partition (shared/service/data/keys.ts): look up those of the releases, SBOMs and dispositions found.
    const pointed = [
      ...snapshot.releases,
      ...snapshot.sboms.keys(),
      ...[...snapshot.dispositions.values()].map((disposition) => disposition.id),
    ];
    const pointers = await Promise.all(
      pointed.map(async (id) =>
        (await this.query(keys.idPointer(teamId, id).pk, undefined, ['sk'])).length > 0 ? id : undefined,
      ),
    );
    for (const id of pointers) if (id !== undefined) snapshot.pointers.add(id);
    // The audit shards, merged in sort-key (time) order as the export reads them.
    const auditShards = await Promise.all(
      keys
        .auditPartitions(teamId)
        .map(({ pk }) =>
          this.query(pk, undefined, ['sk', 'entityType', 'entityId', 'entityName', 'action', 'timestamp', 'changes']),
        ),
    );
    for (const row of auditShards.flat().sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))) {
      if (row.entityType !== 'disposition') continue;
      const changes = (row.changes ?? {}) as Record<string, unknown>;
      const detail = changes.detail as { to?: unknown } | undefined;
      const list = snapshot.audit.get(String(row.entityId)) ?? [];
      list.push({
        action: String(row.action),
        timestamp: String(row.timestamp),
        detailTo: detail?.to as string | null | undefined,
        vulnerabilityId: typeof changes.vulnerabilityId === 'string' ? changes.vulnerabilityId : String(row.entityName),
      });
      snapshot.audit.set(String(row.entityId), list);
    }
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.sbomBucket,
          Prefix: `teams/${teamId}/`,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const object of page.Contents ?? []) if (object.Key) snapshot.objects.set(object.Key, object.Size ?? 0);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return snapshot;
  }
}
