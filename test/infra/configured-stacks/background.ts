/**
 * The scan queue and the scheduled corpus refresh join the stack once their
 * handler files exist. Their wiring is tested whether or not they do, by
 * synthesizing a catalog in which both background functions point at an
 * existing handler as a stand-in (bundling is skipped, so only the entry's
 * presence matters).
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BACKGROUND_FUNCTIONS, functionCatalog, type FunctionSpec } from '../../../lib/function-catalog';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import { actionsOfRole, assertResourceProperties, logicalIdOf, resourcesOf, synthStack } from '../support/synth';

const STAND_IN_ENTRY = functionCatalog().find((spec) => spec.name === 'openapi')?.entry ?? '';

function withBackgroundFunctions(): FunctionSpec[] {
  const names = new Set(BACKGROUND_FUNCTIONS.map((spec) => spec.name));
  return [
    ...functionCatalog().filter((spec) => !names.has(spec.name)),
    ...BACKGROUND_FUNCTIONS.map((spec) => ({ ...spec, entry: STAND_IN_ENTRY })),
  ];
}

let app: App;
let stack: VexdeskStack;
let template: Template;

beforeAll(() => {
  ({ app, stack, template } = synthStack({ props: { catalog: withBackgroundFunctions() } }));
});

function roleId(name: string): string {
  const role = stack.requireFunction(name).role;
  if (!role) throw new Error(`${name} has no role`);
  return logicalIdOf(stack, role);
}

function environmentOf(name: string): Record<string, unknown> {
  const properties = resourcesOf(template)[logicalIdOf(stack, stack.requireFunction(name))]?.Properties as {
    Environment: { Variables: Record<string, unknown> };
  };
  return properties.Environment.Variables;
}

function scanQueueId(): string {
  if (!stack.scanQueue) throw new Error('no scan queue');
  return logicalIdOf(stack, stack.scanQueue);
}

describe('function catalog', () => {
  it('includes each background function exactly when its handler file exists', () => {
    const names = functionCatalog().map((spec) => spec.name);
    for (const spec of BACKGROUND_FUNCTIONS) {
      expect({ name: spec.name, included: names.includes(spec.name) }).toEqual({
        name: spec.name,
        included: existsSync(spec.entry),
      });
    }
  });
});

describe('scan queue', () => {
  it('moves a message to an encrypted dead-letter queue after three failed receives', () => {
    assertResourceProperties(template, 'AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: Match.objectLike({ 'Fn::GetAtt': Match.arrayWith(['Arn']) }),
        maxReceiveCount: 3,
      },
      SqsManagedSseEnabled: true,
    });
    assertResourceProperties(template, 'AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it('keeps a message invisible for six times the worker timeout', () => {
    const worker = BACKGROUND_FUNCTIONS.find((spec) => spec.name === 'scan-worker');
    expect(resourcesOf(template)[scanQueueId()]?.Properties).toMatchObject({
      VisibilityTimeout: (worker?.timeoutSeconds ?? 0) * 6,
    });
  });

  it('denies queue access without TLS', () => {
    assertResourceProperties(template, 'AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: scanQueueId() }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('feeds the scan worker one message at a time and lets it fail messages individually', () => {
    assertResourceProperties(template, 'AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(stack, stack.requireFunction('scan-worker')) },
      EventSourceArn: { 'Fn::GetAtt': [scanQueueId(), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives the queue URL and SendMessage to sboms, the only enqueuer, and no one else', () => {
    const senders = withBackgroundFunctions()
      .filter((spec) => actionsOfRole(template, roleId(spec.name), scanQueueId()).includes('sqs:SendMessage'))
      .map((spec) => spec.name);
    const withUrl = withBackgroundFunctions()
      .filter((spec) => 'SCAN_QUEUE_URL' in environmentOf(spec.name))
      .map((spec) => spec.name);

    expect(senders).toEqual(['sboms']);
    expect(withUrl).toEqual(['sboms']);
  });
});

describe('recovery sweep', () => {
  it('runs the scan worker every 15 minutes, which may delete the files of unfinished uploads', () => {
    assertResourceProperties(template, 'AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.requireFunction('scan-worker')), 'Arn'] } }),
      ],
    });
    // Put: each scan writes the SBOM's findings digest beside its inventory (docs/architecture/lists-and-caches.md "Reading a release's findings").
    expect(actionsOfRole(template, roleId('scan-worker'), logicalIdOf(stack, stack.sbomBucket))).toEqual([
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
  });
});

describe('corpus refresh', () => {
  it('runs every hour from an EventBridge schedule, retrying twice within the hour', () => {
    assertResourceProperties(template, 'AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.requireFunction('corpus-refresh')), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
        }),
      ],
    });
  });

  it('continues an archive import under way every 5 minutes, in invocations of at most 5 minutes', () => {
    assertResourceProperties(template, 'AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.requireFunction('corpus-refresh')), 'Arn'] },
          Input: JSON.stringify({ continuation: true }),
        }),
      ],
    });
    assertResourceProperties(template, 'AWS::Lambda::Function', {
      Description: 'Vexdesk corpus-refresh',
      Timeout: 300,
    });
  });

  it('writes the table and spills oversized corpus items to the SBOM bucket, and nothing else', () => {
    const actions = actionsOfRole(template, roleId('corpus-refresh'));

    expect(actions).toContain('dynamodb:BatchWriteItem');
    expect(actionsOfRole(template, roleId('corpus-refresh'), logicalIdOf(stack, stack.sbomBucket))).toEqual([
      's3:GetObject',
      's3:PutObject',
    ]);
    expect(actions.filter((action) => !action.startsWith('dynamodb:') && !action.startsWith('s3:'))).toEqual([]);
  });
});

describe('cdk-nag with the background functions', () => {
  it('reports no unacknowledged findings', () => {
    expect(new AwsSolutionsChecks(app).validateScope(app).violations).toEqual([]);
  });
});
