/**
 * Tenant-scoped credentials bench: what acting with
 * credentials scoped to the caller's team adds to a request
 * (docs/architecture/request-path.md "Tenant-scoped credentials").
 *  - warm: resolving the team's clients from the per-container cache, per
 *    `dynamo()`/S3 client lookup inside a team request, against the plain clients;
 *  - the tenant guard's check of one call's keys (a disposition write: a
 *    four-item transaction);
 *  - cold, per team per container: building the team's DynamoDB and S3
 *    clients. The AssumeRole call itself needs STS, which has no local
 *    engine; its cost on AWS is stated as an estimate, not measured here.
 *
 * Run: `npx tsx test/bench/tenant.ts` (also part of `npm run bench`).
 */
import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { dynamo, destroyClients, s3ClientOf } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { runAsTeam } from '../../shared/service/request-context';
import { foreignKey } from '../../shared/service/tenant-guard';
import { median } from './stats';

// Configuration is read on first use: a tenant role (never assumed here: credentials are fetched on a client's first send).
Object.assign(process.env, {
  TABLE_NAME: 'vexdesk-bench',
  SBOM_BUCKET: 'bench-sboms',
  DISCLOSURE_BUCKET: 'bench-disclosures',
  AWS_REGION: 'eu-west-1',
  PUBLIC_BASE_URL: 'https://vex.bench.test',
  TENANT_ROLE_ARN: 'arn:aws:iam::123456789012:role/vexdesk-bench-tenant',
});

const SAMPLES = 31;
const PER_SAMPLE = 20_000;

/** Median cost of one `body()` call, in microseconds. */
function perCallMicros(body: () => unknown, perSample = PER_SAMPLE): number {
  const samples: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const started = performance.now();
    for (let index = 0; index < perSample; index += 1) body();
    samples.push(((performance.now() - started) * 1000) / perSample);
  }
  return median(samples);
}

const team = randomUUID();
const [product, release, finding, change] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const at = new Date().toISOString();
const dispositionWrite = {
  TransactItems: [
    {
      ConditionCheck: {
        TableName: 'vexdesk-bench',
        Key: keys.release(team, product, release),
        ConditionExpression: 'attribute_not_exists(lockedBy)',
      },
    },
    {
      Put: {
        TableName: 'vexdesk-bench',
        Item: { ...keys.disposition(team, product, release, finding), state: 'not_affected' },
      },
    },
    {
      Put: {
        TableName: 'vexdesk-bench',
        Item: { ...keys.dispositionHistory(team, product, release, finding, at, change) },
      },
    },
    { Put: { TableName: 'vexdesk-bench', Item: { ...keys.audit(team, at, change) } } },
  ],
};

// Warm both paths first (the team's clients are built on first use).
dynamo();
runAsTeam(team, () => dynamo());
const plain = perCallMicros(() => dynamo());
const scoped = perCallMicros(() =>
  runAsTeam(team, () => {
    dynamo();
    s3ClientOf(S3Client);
  }),
);
const guard = perCallMicros(() => foreignKey(team, 'dynamodb', 'TransactWriteItemsCommand', dispositionWrite));
if (foreignKey(team, 'dynamodb', 'TransactWriteItemsCommand', dispositionWrite) !== undefined)
  throw new Error('the bench transaction should pass the guard');
const cold = perCallMicros(() => runAsTeam(randomUUID(), () => dynamo()), 20) / 1000;
destroyClients();

console.log('Tenant-scoped credentials (median of 31 samples)');
console.log(
  `  warm: team's DynamoDB + S3 clients from the per-container cache (incl. entering the team context)  ${scoped.toFixed(2)} µs per request   (plain client lookup: ${plain.toFixed(3)} µs)`,
);
console.log(
  `  tenant guard, keys of one 4-item disposition transaction                                          ${guard.toFixed(2)} µs per call`,
);
console.log(
  `  cold, first request of a team in a container: build its clients                                   ${cold.toFixed(2)} ms (+ one STS AssumeRole on AWS: estimate 10-50 ms in-region, not measured locally; then cached ~55 min)`,
);
