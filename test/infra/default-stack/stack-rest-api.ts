/**
 * The REST API (lib/rest-api.ts, lib/api-routes.ts) on the synthesized template: one method per route of
 * the route table, the authorizer, public routes, binary bodies, throttling, logging, gateway responses,
 * the 405 and CORS preflight MOCKs. The stack is synthesized once, without bundling the functions.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import {
  gatewayResponseHeaders,
  gatewayResponseTemplate,
  gatewayResponses,
  type GatewayResponseType,
} from '../../../shared/service/http/gateway-responses';
import { routes, type RouteDefinition } from '../../../shared/service/http/routes';
import { API_STAGE_NAME } from '../../../lib/rest-api';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import {
  apiMethods,
  assertResourceProperties,
  functionLogicalId,
  logicalIdOf,
  sharedStack,
  type ApiMethod,
} from '../support/synth';

const allRoutes = routes as readonly RouteDefinition[];
const routeKey = (method: string, path: string): string => `${method} ${path}`;

/** The public CSAF provider routes (docs/csaf-provider.md), in the disclosures group. */
const CSAF_PROVIDER_PATHS = [
  '/.well-known/csaf/provider-metadata.json',
  '/api/disclosures/csaf/{directory}/provider-metadata.json',
  '/api/disclosures/csaf/{directory}/service.json',
  '/api/disclosures/csaf/{directory}/openpgp/{file}',
  '/api/disclosures/csaf/{directory}/white',
  '/api/disclosures/csaf/{directory}/white/index.txt',
  '/api/disclosures/csaf/{directory}/white/changes.csv',
  '/api/disclosures/csaf/{directory}/white/feed-tlp-white.json',
  '/api/disclosures/csaf/{directory}/white/category-white.json',
  '/api/disclosures/csaf/{directory}/white/{year}',
  '/api/disclosures/csaf/{directory}/white/{year}/{file}',
];

let stack: VexdeskStack;
let template: Template;
let methods: ApiMethod[];

beforeAll(() => {
  ({ stack, template } = sharedStack());
  methods = apiMethods(stack);
});

const functionId = (name: string): string => functionLogicalId(stack, name);

describe('REST API', () => {
  // OPTIONS (CORS preflight) and ANY (the 405 answer) are the gateway's own methods, not routes.
  const nonPreflight = (): ApiMethod[] =>
    methods.filter((method) => method.httpMethod !== 'OPTIONS' && method.httpMethod !== 'ANY');

  it("has exactly one method per route of the route table, on the route's path", () => {
    expect(
      nonPreflight()
        .map((method) => routeKey(method.httpMethod, method.path))
        .sort(),
    ).toEqual(allRoutes.map((route) => routeKey(route.method, route.path)).sort());
  });

  it("sends each route to its endpoint group's function through a proxy integration", () => {
    for (const route of allRoutes) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect(method?.properties).toMatchObject({
        OperationName: route.operationId,
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: { 'Fn::Join': ['', expect.arrayContaining([{ 'Fn::GetAtt': [functionId(route.group), 'Arn'] }])] },
        },
      });
    }
  });

  it('hands raw-body routes (SBOM upload, VEX import) their bytes unconverted: proxy integration, no ContentHandling', () => {
    for (const route of allRoutes.filter((candidate) => candidate.request?.rawBody)) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect(method?.properties.Integration).toMatchObject({ Type: 'AWS_PROXY' });
      expect(method?.properties.Integration).not.toHaveProperty('ContentHandling');
    }
    expect(allRoutes.filter((candidate) => candidate.request?.rawBody).map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['uploadSbom', 'importVex']),
    );
  });

  it('protects every non-public route with the Lambda authorizer', () => {
    const authorizerRef = { Ref: logicalIdOf(stack, stack.authorizer) };
    for (const route of allRoutes.filter((candidate) => candidate.scope !== null)) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect({
        route: routeKey(route.method, route.path),
        auth: method?.properties.AuthorizationType,
        authorizer: method?.properties.AuthorizerId,
      }).toEqual({
        route: routeKey(route.method, route.path),
        auth: 'CUSTOM',
        authorizer: authorizerRef,
      });
    }
  });

  it('leaves exactly the disclosure routes and their files, the CSAF provider, the OIDC token exchange, browser sign-in and the OpenAPI document public', () => {
    const publicMethods = nonPreflight()
      .filter((method) => method.properties.AuthorizationType === 'NONE')
      .map((method) => routeKey(method.httpMethod, method.path));
    const csafProvider = CSAF_PROVIDER_PATHS.map((path) => `GET ${path}`);
    expect(publicMethods.sort()).toEqual(
      [
        'GET /api/disclosures',
        'GET /api/disclosures/{slug}',
        'GET /api/disclosures/{slug}/verify',
        'GET /api/openapi.json',
        'POST /api/auth/oidc/token',
        // The files beside a snapshot and the publishers' public keys (docs/disclosure-verification.md).
        'GET /api/disclosures/{slug}/signature',
        'GET /api/disclosures/{slug}/sha256',
        'GET /api/disclosures/{slug}/sha512',
        'GET /api/disclosures/{slug}/attestation',
        'GET /api/disclosures/publishers/{teamId}/keys',
        'GET /api/auth/login',
        'GET /api/auth/callback',
        'POST /api/auth/logout',
        ...csafProvider,
      ].sort(),
    );
  });

  it('checks every private request with a REQUEST authorizer without identity source (Bearer header or session cookie) and without result caching', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: '',
      AuthorizerResultTtlInSeconds: 0,
      AuthorizerUri: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [functionId('authorizer'), 'Arn'] }])],
      }),
    });
  });

  it('treats every media type as binary so gzip and raw SBOM request bodies reach the Lambda intact', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['*/*'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('throttles the stage, with tighter limits on the anonymous disclosure routes', () => {
    const publicSettings = allRoutes
      .filter((route) => route.scope === null && route.group === 'disclosures')
      .map((route) =>
        Match.objectLike({
          HttpMethod: 'GET',
          ResourcePath: route.path.replace(/\//g, '~1').replace(/^~1/, '/~1'),
          ThrottlingRateLimit: 20,
          ThrottlingBurstLimit: 40,
        }),
      );
    assertResourceProperties(template, 'AWS::ApiGateway::Stage', {
      StageName: API_STAGE_NAME,
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
        ...publicSettings,
      ]),
    });
  });

  it('logs access as JSON lines and execution errors without request or response bodies', () => {
    const stages = template.findResources('AWS::ApiGateway::Stage');
    const stageProperties = Object.values(stages)[0]?.Properties as {
      AccessLogSetting: { Format: string; DestinationArn: unknown };
      MethodSettings: Array<Record<string, unknown>>;
    };
    const format = JSON.parse(stageProperties.AccessLogSetting.Format) as Record<string, string>;

    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      resourcePath: '$context.resourcePath',
    });
    expect(stageProperties.MethodSettings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
        }),
      ]),
    );
  });

  it("answers API Gateway's own errors in the service's JSON error shape", () => {
    for (const type of Object.keys(gatewayResponses) as GatewayResponseType[]) {
      assertResourceProperties(template, 'AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(gatewayResponses[type].statusCode),
        ResponseParameters: Object.fromEntries(
          Object.entries(gatewayResponseHeaders(type)).map(([name, value]) => [
            `gatewayresponse.header.${name}`,
            `'${value}'`,
          ]),
        ),
        ResponseTemplates: { 'application/json': gatewayResponseTemplate(type) },
      });
    }
  });

  it('sends X-Content-Type-Options: nosniff and a JSON content type on every gateway response (401, 403, 404, 400, 413, 429, 5xx)', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map(
      (resource) => resource.Properties as { ResponseType: string; ResponseParameters?: Record<string, string> },
    );

    expect(responses.map((response) => response.ResponseType).sort()).toEqual(
      expect.arrayContaining([
        'ACCESS_DENIED',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'MISSING_AUTHENTICATION_TOKEN',
        'UNAUTHORIZED',
      ]),
    );
    for (const response of responses) {
      expect({ type: response.ResponseType, headers: response.ResponseParameters }).toEqual({
        type: response.ResponseType,
        headers: expect.objectContaining({
          'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
          'gatewayresponse.header.Content-Type': "'application/json'",
        }),
      });
    }
  });

  it("answers an unknown method on every route path with a MOCK 405 whose Allow lists the route table's methods", () => {
    const anyMethods = methods.filter((method) => method.httpMethod === 'ANY');
    const paths = [...new Set(allRoutes.map((route) => route.path))];
    expect(anyMethods.map((method) => method.path).sort()).toEqual([...paths].sort());
    for (const method of anyMethods) {
      const allow = [...new Set(allRoutes.filter((route) => route.path === method.path).map((route) => route.method))]
        .sort()
        .join(', ');
      expect(method.properties).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          ContentHandling: 'CONVERT_TO_TEXT',
          IntegrationResponses: [
            expect.objectContaining({
              StatusCode: '405',
              ResponseParameters: expect.objectContaining({ 'method.response.header.Allow': `'${allow}'` }),
              ResponseTemplates: { 'application/json': expect.stringContaining('"code":"method_not_allowed"') },
            }),
          ],
        },
      });
    }
  });

  it('answers CORS preflight only on the public disclosure routes, as text despite the binary media type', () => {
    const preflights = methods.filter((method) => method.httpMethod === 'OPTIONS');
    expect(preflights.map((method) => method.path).sort()).toEqual(
      [
        '/api/disclosures',
        '/api/disclosures/publishers/{teamId}/keys',
        '/api/disclosures/{slug}',
        '/api/disclosures/{slug}/attestation',
        '/api/disclosures/{slug}/sha256',
        '/api/disclosures/{slug}/sha512',
        '/api/disclosures/{slug}/signature',
        '/api/disclosures/{slug}/verify',
        ...CSAF_PROVIDER_PATHS,
      ].sort(),
    );
    for (const preflight of preflights) {
      expect(preflight.properties).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          ContentHandling: 'CONVERT_TO_TEXT',
          IntegrationResponses: [
            expect.objectContaining({
              StatusCode: '204',
              ContentHandling: 'CONVERT_TO_TEXT',
              ResponseParameters: expect.objectContaining({
                'method.response.header.Access-Control-Allow-Origin': "'*'",
              }),
            }),
          ],
        },
      });
    }
  });
});
