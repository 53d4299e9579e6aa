/**
 * The REST API: the REQUEST authorizer, the API and its stage (throttling, logging, binary bodies),
 * API Gateway's own answers in the service's error shape, the routes (lib/api-routes.ts) and the
 * default per-team usage plan. Added to the stack scope, so logical IDs stay those of the deployed
 * API (lib/stack-support.ts).
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import {
  gatewayResponseHeaders,
  gatewayResponseTemplate,
  gatewayResponses,
  type GatewayResponseType,
} from '../shared/service/http/gateway-responses';
import { isPublicDisclosureRoute, routes, type RouteDefinition } from '../shared/service/http/routes';
import { ApiRoutes } from './api-routes';
import type { ServiceFunctions } from './service-functions';
import type { VexdeskSettings } from './settings';
import { acknowledge, pascalCase } from './stack-support';

/** Stage name: URLs are `https://<api>.execute-api.<region>.amazonaws.com/prod/api/...`. */
export const API_STAGE_NAME = 'prod';

export class ServiceApi {
  readonly authorizer: apigw.RequestAuthorizer;
  readonly api: apigw.RestApi;
  /** The nested stack with the API's resources and methods (lib/api-routes.ts). */
  readonly routes: ApiRoutes;

  constructor(scope: Stack, settings: VexdeskSettings, functions: ServiceFunctions) {
    this.authorizer = new apigw.RequestAuthorizer(scope, 'ApiKeyAuthorizer', {
      handler: functions.require('authorizer'),
      // None: a request carries a Bearer header or a session cookie, and API Gateway would answer 401
      // without invoking the authorizer when an identity source is missing. Allowed because results are not cached.
      identitySources: [],
      // Revocation must take effect on the next request, so no result caching.
      resultsCacheTtl: Duration.seconds(0),
    });
    this.api = createApi(scope, settings);
    installGatewayResponses(this.api);
    this.routes = new ApiRoutes(scope, this.api, this.authorizer, functions);
  }
}

// API Gateway REST API (v1) rather than an HTTP API (v2). Only v1 lets us
// replace API Gateway's own answers (authorizer 401, 403, unknown route,
// 413, 429) with the service's one error body: HTTP APIs
// have no gateway responses. v1 also gives us a REQUEST authorizer with
// result caching off, so revocation is immediate; stage
// throttling with per-method overrides for the anonymous routes; execution
// logging per method; and binaryMediaTypes ['*/*'], which hands every request
// body, `Content-Encoding: gzip` SBOM uploads and raw SBOM files (XML, tag-value)
// included, to the Lambda intact as base64 (docs/sbom-formats.md "Raw bodies").
function createApi(scope: Stack, settings: VexdeskSettings): apigw.RestApi {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', { retention: settings.logRetention });
  const api = new apigw.RestApi(scope, 'Api', {
    restApiName: 'vexdesk',
    description: 'Vexdesk supply-chain vulnerability disclosure API',
    endpointTypes: [apigw.EndpointType.REGIONAL],
    binaryMediaTypes: ['*/*'],
    // Per-team throttling: the authorizer returns the team's usage-plan key (usageIdentifierKey).
    apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
    // Execution logging (loggingLevel below) needs the account-level CloudWatch role.
    cloudWatchRole: true,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
    deployOptions: {
      stageName: API_STAGE_NAME,
      throttlingRateLimit: settings.throttle.rateLimit,
      throttlingBurstLimit: settings.throttle.burstLimit,
      methodOptions: publicMethodOptions(settings),
      // Errors only, and never request/response bodies: they carry SBOMs and keys.
      loggingLevel: apigw.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: true,
      tracingEnabled: settings.tracing,
      accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
      accessLogFormat: accessLogFormat(),
    },
  });
  acknowledge(
    api,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    'The account-level role API Gateway uses to write execution logs; AWS documents this managed policy for exactly that role.',
  );
  acknowledge(
    api,
    'AwsSolutions-APIG2',
    "Requests are validated in the Lambda with the route table's zod schemas, which also produce the 422 error details the spec requires.",
  );
  return api;
}

/** Per-method throttling of the anonymous routes, keyed `/{path}/{METHOD}` as the stage expects. */
function publicMethodOptions(settings: VexdeskSettings): Record<string, apigw.MethodDeploymentOptions> {
  const options: Record<string, apigw.MethodDeploymentOptions> = {};
  for (const route of routes as readonly RouteDefinition[]) {
    if (!isPublicDisclosureRoute(route)) continue;
    options[`${route.path}/${route.method}`] = {
      throttlingRateLimit: settings.publicThrottle.rateLimit,
      throttlingBurstLimit: settings.publicThrottle.burstLimit,
    };
  }
  return options;
}

/** JSON access log lines: who (key's service account), what, how it went, how long. */
function accessLogFormat(): apigw.AccessLogFormat {
  const f = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: f.contextRequestId(),
      requestTime: f.contextRequestTime(),
      sourceIp: f.contextIdentitySourceIp(),
      userAgent: f.contextIdentityUserAgent(),
      httpMethod: f.contextHttpMethod(),
      resourcePath: f.contextResourcePath(),
      path: f.contextPath(),
      status: f.contextStatus(),
      responseLength: f.contextResponseLength(),
      responseLatency: f.contextResponseLatency(),
      integrationLatency: f.contextIntegrationLatency(),
      principalId: f.contextAuthorizerPrincipalId(),
      authorizerError: f.contextAuthorizerError(),
      errorType: f.contextErrorResponseType(),
      errorMessage: f.contextErrorMessage(),
    }),
  );
}

function installGatewayResponses(api: apigw.RestApi): void {
  for (const type of Object.keys(gatewayResponses) as GatewayResponseType[]) {
    const headers = Object.fromEntries(
      Object.entries(gatewayResponseHeaders(type)).map(([name, value]) => [name, `'${value}'`]),
    );
    api.addGatewayResponse(`GatewayResponse${pascalCase(type.toLowerCase().replace(/_/g, '-'))}`, {
      type: apigw.ResponseType.of(type),
      statusCode: String(gatewayResponses[type].statusCode),
      responseHeaders: headers,
      templates: { 'application/json': gatewayResponseTemplate(type) },
    });
  }
}

/**
 * Throttling per team: every team is one API key of a
 * usage plan, named by the authorizer (apiKeySource AUTHORIZER), so one
 * tenant cannot spend the stage-wide budget. This is the default plan; the
 * admin CLI creates each team's key and moves it to a plan of its own for
 * an override (shared/service/identity/usage-plan-keys.ts). Every function learns
 * the default, which GET /api/settings shows.
 */
export function createTeamUsagePlan(
  api: apigw.RestApi,
  settings: VexdeskSettings,
  functions: ServiceFunctions,
): apigw.UsagePlan {
  const plan = api.addUsagePlan('TeamUsagePlan', {
    name: `${Stack.of(api).stackName}-team-default`,
    description: 'Vexdesk default per-team throttle; each team is one API key named by the Lambda authorizer',
    throttle: { rateLimit: settings.teamThrottle.rateLimit, burstLimit: settings.teamThrottle.burstLimit },
    apiStages: [{ api, stage: api.deploymentStage }],
  });
  for (const fn of functions.byName.values()) {
    fn.addEnvironment('TEAM_RATE_LIMIT', String(settings.teamThrottle.rateLimit));
    fn.addEnvironment('TEAM_BURST_LIMIT', String(settings.teamThrottle.burstLimit));
  }
  return plan;
}
