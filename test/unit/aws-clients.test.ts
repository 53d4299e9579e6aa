/**
 * shared/service/aws-clients.ts builds every SDK client. The SDK's logger middleware
 * copies each input and output (a 2,000-finding query, a multi-megabyte
 * document) for a logger nobody reads, so the clients are built without it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { destroyClients, dynamo, dynamoItems, secretsManager, sqs } from '../../shared/service/aws-clients';
import { s3Client } from '../../shared/service/aws-s3';

beforeAll(() => {
  // Configuration is read on first use, after this.
  Object.assign(process.env, {
    TABLE_NAME: 'vexdesk-unit',
    SBOM_BUCKET: 'unit-sboms',
    DISCLOSURE_BUCKET: 'unit-disclosures',
    AWS_REGION: 'eu-west-1',
    PUBLIC_BASE_URL: 'https://vexdesk.test',
  });
});

afterAll(() => {
  destroyClients();
});

describe('SDK clients', () => {
  it('carry no SDK logger middleware, and keep the call recorder', async () => {
    const stacks = {
      dynamodb: dynamo().middlewareStack.identify(),
      'dynamodb items': dynamoItems().middlewareStack.identify(),
      s3: (await s3Client()).middlewareStack.identify(),
      sqs: (await sqs()).client.middlewareStack.identify(),
      secretsmanager: (await secretsManager()).client.middlewareStack.identify(),
    };

    for (const [client, names] of Object.entries(stacks)) {
      expect({ client, logger: names.filter((name) => name.startsWith('loggerMiddleware')) }).toEqual({
        client,
        logger: [],
      });
      // Sanity check that identify() lists the stack: the SDK's own retry middleware is there.
      expect({ client, retry: names.some((name) => name.startsWith('retryMiddleware')) }).toEqual({
        client,
        retry: true,
      });
    }
  });

  it("resolve table-client's middleware once per command, and not the document client's", () => {
    // The document client's commands answer the first command's input from a cached stack (aws/aws-sdk-js-v3#7801).
    expect(dynamoItems().config.cacheMiddleware).toBe(true);
    expect(dynamo().config.cacheMiddleware).not.toBe(true);
    expect(dynamoItems().middlewareStack.identify()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^vexdeskTenantGuard/)]),
    );
  });
});
