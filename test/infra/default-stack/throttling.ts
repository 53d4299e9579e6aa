/**
 * Throttling per team and per anonymous client (issue 8, defect 9), as the
 * synthesized template configures it: usage-plan keys named by the authorizer,
 * the default team plan, the WAF rate-based rule on the stage, and 429 gateway
 * responses with Retry-After.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { gatewayResponseTemplate } from '../../../shared/service/http/gateway-responses';
import { routes, type RouteDefinition } from '../../../shared/service/http/routes';
import { CONTEXT_KEYS, settingsFromContext } from '../../../lib/settings';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import {
  apiMethods,
  assertCatalogFunctionsProperties,
  assertOutput,
  assertResourceProperties,
  createApp,
  logicalIdOf,
  sharedStack,
  synthStack,
  type ApiMethod,
} from '../support/synth';

let stack: VexdeskStack;
let template: Template;
let methods: ApiMethod[];

beforeAll(() => {
  ({ stack, template } = sharedStack());
  // OPTIONS (CORS preflight) and ANY (the MOCK 405) run no Lambda and are not routes.
  methods = apiMethods(stack).filter((method) => method.httpMethod !== 'OPTIONS' && method.httpMethod !== 'ANY');
});

function apiId(): string {
  return logicalIdOf(stack, stack.api);
}

describe('per-team throttling', () => {
  it('takes the usage-plan key from the Lambda authorizer', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('requires a usage-plan key on every authorized route and on no public one', () => {
    const privatePaths = new Set(
      (routes as readonly RouteDefinition[])
        .filter((route) => route.scope !== null)
        .map((route) => `${route.method} ${route.path}`),
    );
    expect(methods.length).toBeGreaterThan(privatePaths.size);
    for (const method of methods) {
      const key = `${method.httpMethod} ${method.path}`;
      expect({ key, apiKeyRequired: method.properties.ApiKeyRequired === true }).toEqual({
        key,
        apiKeyRequired: privatePaths.has(key),
      });
    }
  });

  it('throttles every team by default with the default plan on the stage, and publishes the plan id for the admin CLI', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      ApiStages: [
        Match.objectLike({ ApiId: { Ref: apiId() }, Stage: { Ref: Match.stringLikeRegexp('DeploymentStage') } }),
      ],
    });
    assertOutput(template, 'TeamUsagePlanId', { Value: { Ref: logicalIdOf(stack, stack.teamUsagePlan) } });
  });

  it('tells every function the default quota, which GET /api/settings shows', () => {
    assertCatalogFunctionsProperties(template, stack, {
      Environment: { Variables: { TEAM_RATE_LIMIT: '50', TEAM_BURST_LIMIT: '100' } },
    });
  });

  it('takes the default quota and the per-client limit from context', () => {
    const context = {
      [CONTEXT_KEYS.teamThrottleRate]: '7',
      [CONTEXT_KEYS.teamThrottleBurst]: '9',
      [CONTEXT_KEYS.publicClientLimit]: '50',
    };
    const custom = synthStack({
      context,
      props: { settings: settingsFromContext(createApp({ context }).node) },
    }).template;

    assertResourceProperties(custom, 'AWS::ApiGateway::UsagePlan', { Throttle: { RateLimit: 7, BurstLimit: 9 } });
    assertResourceProperties(custom, 'AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'public-client-rate-limit',
          Statement: { RateBasedStatement: Match.objectLike({ Limit: 50 }) },
        }),
      ]),
    });
  });
});

describe('per-client throttling of the anonymous routes', () => {
  it("rate-limits each client (the viewer's address CloudFront forwards) on the disclosure paths with a regional web ACL", () => {
    assertResourceProperties(template, 'AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: {
              AggregateKeyType: 'FORWARDED_IP',
              ForwardedIPConfig: { HeaderName: 'True-Client-IP', FallbackBehavior: 'MATCH' },
              Limit: 300,
              EvaluationWindowSec: 60,
              ScopeDownStatement: {
                ByteMatchStatement: {
                  FieldToMatch: { UriPath: {} },
                  PositionalConstraint: 'CONTAINS',
                  SearchString: '/api/disclosures',
                  TextTransformations: [{ Priority: 0, Type: 'NONE' }],
                },
              },
            },
          },
        }),
      ]),
    });
  });

  it('associates the web ACL with the API stage', () => {
    assertResourceProperties(template, 'AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.publicClientFirewall), 'Arn'] },
      ResourceArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: apiId() }])] }),
    });
  });
});

describe('429 answers', () => {
  it.each([
    ['THROTTLED', '1'],
    ['WAF_FILTERED', '60'],
  ] as const)("answers %s with 429, Retry-After %s and the service's error body", (type, retryAfter) => {
    assertResourceProperties(template, 'AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: '429',
      ResponseParameters: Match.objectLike({
        'gatewayresponse.header.Retry-After': `'${retryAfter}'`,
        'gatewayresponse.header.Content-Type': "'application/json'",
      }),
      ResponseTemplates: { 'application/json': gatewayResponseTemplate(type) },
    });
  });

  it("answers a team without a provisioned usage-plan key with 403 in the service's error shape, not the DEFAULT_4XX 400", () => {
    assertResourceProperties(template, 'AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'INVALID_API_KEY',
      StatusCode: '403',
    });
  });
});
