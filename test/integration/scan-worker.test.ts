/**
 * The scan-worker function's queue trigger, called as the SQS event source calls it. The local
 * server runs scans in-process and never parses a job, so only this test reads one as AWS does:
 * the job schema once refused actor kind `workload` (every scan of an OIDC upload dropped on AWS).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context, SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/scan-worker/handler';
import { OPERATOR_ACTOR, type Actor } from '../../shared/service/identity/actor';
import { Sboms } from '../../shared/service/sboms/sboms';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

const SPRING = readFileSync(
  resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json'),
  'utf8',
);

const context = { getRemainingTimeInMillis: () => 300_000 } as Context;

function delivery(body: unknown): SQSEvent {
  return {
    Records: [
      {
        messageId: 'message-1',
        receiptHandle: 'receipt-1',
        body: JSON.stringify(body),
        md5OfBody: '',
        messageAttributes: {},
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:local:000000000000:scans',
        awsRegion: 'local',
      },
    ],
  };
}

describe('scan-worker queue trigger', () => {
  it('scans an SBOM a CI workload uploaded (an OIDC-issued token: actor kind workload)', async () => {
    const team = await createTeamWithKey();
    const product = (
      await team.api.post('/api/products', { name: 'Workload upload', slug: uniqueSlug('workload-scan') })
    ).body.data;
    const release = (await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
    // Committed as the API does; this test process registers no scan worker, so the scan is left to the call below.
    const sbom = await Sboms.upload(team.teamId, OPERATOR_ACTOR, { releaseId: release.id, content: SPRING });
    const workload: Actor = { id: 'trust-policy-1', name: 'github:acme/app', email: null, kind: 'workload' };

    const result = await handler(delivery({ teamId: team.teamId, sbomId: sbom.id, actor: workload }), context);

    expect(result).toEqual({ batchItemFailures: [] });
    expect((await team.api.get(`/api/sboms/${sbom.id}`)).body.data.scan).toMatchObject({ status: 'completed' });
  });

  it('reports an unreadable job as a failed item, so SQS delivers it again and finally to the dead-letter queue', async () => {
    const result = await handler(delivery({ teamId: 'not-a-uuid' }), context);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'message-1' }] });
  });
});
