/**
 * POST /api/cve-scan answers before its function's deadline (docs/scanning.md "Bounded by the
 * caller"). The scans handler runs here as Lambda runs it, with the Lambda context's remaining
 * time as the only thing set by the test (the local gateway always grants the full 29 s): a scan
 * that cannot end before the deadline leaves the request with 409 scan_pending and still stores its
 * findings; a request whose time runs out before any answer gets 503 `timeout` from the handler,
 * never middy's TimeoutError as a 500 (which the scan bench saw on a loaded machine).
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { handler } from '../../functions/scans/handler';
import { keys } from '../../shared/service/data/keys';
import { toAuthorizerContext } from '../../shared/service/http/authorizer-context';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Sboms } from '../../shared/service/sboms/sboms';
import { scanLease } from '../../shared/service/scans/scan-lease';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

const SPRING = readFileSync(
  resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json'),
  'utf8',
);

/** A Lambda context whose invocation has `remainingMs` left when the handler starts. */
function lambdaContext(remainingMs: number): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'vexdesk-scans',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:vexdesk-scans',
    memoryLimitInMB: '2048',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/vexdesk-scans',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The proxy event API Gateway sends for POST /api/cve-scan after the authorizer admitted `key`. */
async function cveScanEvent(key: string, sbomId: string): Promise<APIGatewayProxyEvent> {
  const authenticated = await ApiKeys.authenticate(key);
  if (!authenticated) throw new Error('the test key did not authenticate');
  return {
    resource: '/api/cve-scan',
    path: '/api/cve-scan',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      requestId: randomUUID(),
      authorizer: { ...toAuthorizerContext(authenticated), principalId: authenticated.keyId },
    } as unknown as APIGatewayProxyEvent['requestContext'],
    body: JSON.stringify({ sbomId }),
    isBase64Encoded: false,
  };
}

async function uploadedSbom() {
  const team = await createTeamWithKey();
  const product = (await team.api.post('/api/products', { name: 'Deadline', slug: uniqueSlug('deadline') })).body.data;
  const release = (await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as {
    id: string;
  };
  // No scan worker runs in this process: the upload is committed and its scan never dispatched.
  const sbom = await Sboms.upload(team.teamId, OPERATOR_ACTOR, { releaseId: release.id, content: SPRING });
  return { ...team, productId: product.id as string, releaseId: release.id, sbomId: sbom.id };
}

async function settledScan(api: Awaited<ReturnType<typeof createTeamWithKey>>['api'], sbomId: string) {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const scan = (await api.get(`/api/sboms/${sbomId}`)).body.data.scan as { status: string; finding_count: number };
    if (scan.status === 'completed' || scan.status === 'failed') return scan;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`the scan of ${sbomId} did not settle`);
}

describe("POST /api/cve-scan within its function's deadline", () => {
  it('answers 409 scan_pending when its own scan cannot end before the deadline, and the scan still completes', async () => {
    const { api, key, sbomId } = await uploadedSbom();

    // The request answers 1 s before the function's deadline, here as soon as its scan has started.
    const response = await handler(await cveScanEvent(key, sbomId), lambdaContext(1000));

    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body).error).toMatchObject({
      code: 'scan_pending',
      details: [{ path: 'scan.status', code: 'running' }],
    });
    const scan = await settledScan(api, sbomId);
    expect(scan.status).toBe('completed');
    expect(scan.finding_count).toBeGreaterThan(0);
    const list = await api.get(`/api/sboms/${sbomId}/vulnerabilities`);
    expect(list.body.summary.total).toBe(scan.finding_count);
  });

  it("answers 503 timeout, never 500, when the function's time runs out before the operation can answer", async () => {
    const { api, key, sbomId } = await uploadedSbom();

    const response = await handler(await cveScanEvent(key, sbomId), lambdaContext(0));

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'timeout' });
    expect((await settledScan(api, sbomId)).status).toBe('completed'); // the scan it started goes on
  });

  it('answers 409 scan_pending when the scan it joins outlives its deadline', async () => {
    const { sbomId, teamId, productId, releaseId, key } = await uploadedSbom();
    const taken = await scanLease.take(keys.scanLease(teamId, productId, releaseId, sbomId), sbomId);
    if (!('held' in taken)) throw new Error('the lease of a fresh SBOM was held');

    try {
      const response = await handler(await cveScanEvent(key, sbomId), lambdaContext(1200));

      expect(response.statusCode).toBe(409);
      expect(JSON.parse(response.body).error).toMatchObject({
        code: 'scan_pending',
        details: [{ path: 'scan.status', code: 'running' }],
      });
    } finally {
      await taken.held.release();
    }
  });

  it('answers 202 with the scan summary when the scan ends in time', async () => {
    const { api, key, sbomId } = await uploadedSbom();

    const response = await handler(await cveScanEvent(key, sbomId), lambdaContext(29_000));

    expect(response.statusCode).toBe(202);
    const data = JSON.parse(response.body).data as { status: string; findingCount: number; scannedAt: string };
    expect(data).toMatchObject({ sbomId, status: 'completed' });
    expect((await api.get(`/api/sboms/${sbomId}`)).body.data.scan).toMatchObject({
      status: 'completed',
      scanned_at: data.scannedAt,
      finding_count: data.findingCount,
    });
  });
});
