/**
 * The API's regional web ACL behind CloudFront (docs/security.md, docs/console-hosting.md): only requests
 * that came through the distribution get in (an origin header whose value is a generated secret), and the
 * per-client rules count the viewer's address, which a CloudFront Function on the API behaviours writes
 * into True-Client-IP (replacing whatever the viewer sent), instead of the edge server's source IP.
 */
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { CLIENT_ADDRESS_FUNCTION_FILE } from '../../../lib/console-hosting';
import { CLIENT_ADDRESS_HEADER, ORIGIN_VERIFY_HEADER } from '../../../lib/public-client-firewall';
import {
  DEFAULT_SIGN_IN_CLIENT_LIMIT,
  PUBLIC_CLIENT_LIMITED_PATH,
  SIGN_IN_CLIENT_LIMITED_PATHS,
} from '../../../shared/service/http/throttling';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import { distributionConfigOf } from '../support/console-synth';
import { assertResourceProperties, logicalIdOf, resourcesOf, sharedStack } from '../support/synth';

let stack: VexdeskStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedStack());
});

interface WebAclRule {
  Name: string;
  Priority: number;
  Action: Record<string, unknown>;
  Statement: Record<string, unknown>;
}

function webAcl(): { Rules: WebAclRule[]; CustomResponseBodies?: Record<string, unknown> } {
  const acls = Object.values(resourcesOf(template)).filter((resource) => resource.Type === 'AWS::WAFv2::WebACL');
  expect(acls).toHaveLength(1);
  return acls[0]!.Properties as { Rules: WebAclRule[]; CustomResponseBodies?: Record<string, unknown> };
}

function rule(name: string): WebAclRule {
  const found = webAcl().Rules.find((candidate) => candidate.Name === name);
  if (!found) throw new Error(`no rule ${name}`);
  return found;
}

/** The template value CloudFront sends and WAF compares: a reference to the generated origin secret. */
function originSecretValue(): unknown {
  const origin = distributionConfigOf(stack, template).Origins.find((candidate) => candidate.CustomOriginConfig);
  const headers = (origin as { OriginCustomHeaders?: Array<{ HeaderName: string; HeaderValue: unknown }> })
    .OriginCustomHeaders;
  return headers?.find((header) => header.HeaderName === ORIGIN_VERIFY_HEADER)?.HeaderValue;
}

const forwardedClient = { ForwardedIPConfig: { HeaderName: CLIENT_ADDRESS_HEADER, FallbackBehavior: 'MATCH' } };

describe('only requests through CloudFront reach the API', () => {
  it('sends a generated secret in an origin header to API Gateway', () => {
    const value = JSON.stringify(originSecretValue());
    expect(value).toContain('resolve:secretsmanager');
    assertResourceProperties(template, 'AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });

  it('blocks, before any other rule, a request without that header value with a 403 of its own', () => {
    const first = [...webAcl().Rules].sort((a, b) => a.Priority - b.Priority)[0]!;
    expect(first.Name).toBe('through-cloudfront-only');
    expect(first.Action).toEqual({
      Block: { CustomResponse: { ResponseCode: 403, CustomResponseBodyKey: 'not-through-cloudfront' } },
    });
    expect(first.Statement).toEqual({
      NotStatement: {
        Statement: {
          ByteMatchStatement: {
            FieldToMatch: { SingleHeader: { Name: ORIGIN_VERIFY_HEADER } },
            PositionalConstraint: 'EXACTLY',
            SearchString: originSecretValue(),
            TextTransformations: [{ Priority: 0, Type: 'NONE' }],
          },
        },
      },
    });
    expect(webAcl().CustomResponseBodies).toMatchObject({
      'not-through-cloudfront': { ContentType: 'APPLICATION_JSON' },
    });
  });
});

describe("per-client rules count the viewer's address", () => {
  it('keys the disclosure rule on the forwarded client address, not the edge server', () => {
    expect(rule('public-client-rate-limit').Statement).toMatchObject({
      RateBasedStatement: {
        AggregateKeyType: 'FORWARDED_IP',
        ...forwardedClient,
        ScopeDownStatement: {
          ByteMatchStatement: expect.objectContaining({ SearchString: PUBLIC_CLIENT_LIMITED_PATH }),
        },
      },
    });
  });

  it('limits sign-in starts and token exchanges to 30 a minute per client, both paths in one count', () => {
    const statement = rule('sign-in-rate-limit').Statement as {
      RateBasedStatement: { ScopeDownStatement: { OrStatement: { Statements: Array<Record<string, unknown>> } } };
    };
    expect(rule('sign-in-rate-limit').Action).toEqual({ Block: {} });
    expect(statement.RateBasedStatement).toMatchObject({
      AggregateKeyType: 'FORWARDED_IP',
      ...forwardedClient,
      Limit: DEFAULT_SIGN_IN_CLIENT_LIMIT,
      EvaluationWindowSec: 60,
    });
    expect(statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements).toEqual(
      SIGN_IN_CLIENT_LIMITED_PATHS.map((path) => ({
        ByteMatchStatement: {
          FieldToMatch: { UriPath: {} },
          PositionalConstraint: 'CONTAINS',
          SearchString: path,
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      })),
    );
  });

  it('runs the client-address function on the viewer requests of every API behaviour', () => {
    const fn = Object.entries(resourcesOf(template)).find(
      ([, resource]) =>
        resource.Type === 'AWS::CloudFront::Function' &&
        (resource.Properties as { FunctionCode: string }).FunctionCode ===
          readFileSync(CLIENT_ADDRESS_FUNCTION_FILE, 'utf8'),
    );
    expect(fn).toBeDefined();
    const config = distributionConfigOf(stack, template);
    const apiBehaviors = config.CacheBehaviors.filter(
      (behavior) => config.Origins.find((origin) => origin.Id === behavior.TargetOriginId)?.CustomOriginConfig,
    );
    expect(apiBehaviors.length).toBeGreaterThan(0);
    for (const behavior of apiBehaviors)
      expect(behavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fn![0], 'FunctionARN'] } },
      ]);
    expect(logicalIdOf(stack, stack.publicClientFirewall)).toBeDefined();
  });
});

describe("the client-address function (the CloudFront Function's own code, run in a VM)", () => {
  const code = readFileSync(CLIENT_ADDRESS_FUNCTION_FILE, 'utf8');
  const handler = runInNewContext(`${code}\nhandler`, {}) as (event: unknown) => {
    uri: string;
    headers: Record<string, { value: string }>;
  };
  const viewerRequest = (headers: Record<string, { value: string }>) =>
    handler({
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: '198.51.100.7' },
      request: { method: 'POST', uri: '/api/auth/oidc/token', querystring: {}, headers, cookies: {} },
    });

  it("writes the viewer's address, replacing one the viewer sent, and leaves the rest of the request", () => {
    const spoofed = viewerRequest({
      [CLIENT_ADDRESS_HEADER.toLowerCase()]: { value: '203.0.113.9' },
      'x-forwarded-for': { value: '203.0.113.9' },
      authorization: { value: 'Bearer x' },
    });
    expect(spoofed.headers[CLIENT_ADDRESS_HEADER.toLowerCase()]).toEqual({ value: '198.51.100.7' });
    expect(spoofed.headers.authorization).toEqual({ value: 'Bearer x' });
    expect(spoofed.uri).toBe('/api/auth/oidc/token');
    expect(viewerRequest({}).headers[CLIENT_ADDRESS_HEADER.toLowerCase()]).toEqual({ value: '198.51.100.7' });
  });
});
