/**
 * The REST API's resources and methods, straight from the route table: one proxy
 * integration per endpoint group's function, the authorizer on every route with a scope, a MOCK 405
 * with `Allow` for the methods a path does not serve, and CORS preflight on the public disclosure routes.
 *
 * They live in a nested stack of their own (`ApiRoutes`): with one resource, one method and one 405 per path
 * they are most of the stack's resources, and CloudFormation allows 500 per stack. The API, its authorizer,
 * deployment and stage stay in the top-level stack; the methods attach to that API, so its deployment still
 * changes (and waits for the nested stack) whenever a route does.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import {
  GATEWAY_RESPONSE_HEADERS,
  METHOD_NOT_ALLOWED,
  methodNotAllowedTemplate,
} from '../shared/service/http/gateway-responses';
import {
  isPublicDisclosureRoute,
  methodsOfPath,
  routePaths,
  routes,
  type EndpointGroup,
  type RouteDefinition,
} from '../shared/service/http/routes';
import type { ServiceFunctions } from './service-functions';
import { acknowledge } from './stack-support';

/** Media types the 405 MOCK integration maps; a request without Content-Type counts as application/json. */
const METHOD_NOT_ALLOWED_MEDIA_TYPES = [
  'application/json',
  'application/gzip',
  'application/octet-stream',
  'application/xml',
  'text/xml',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/vnd.cyclonedx+json',
  'application/spdx+json',
];

/** The nested stack holding every resource and method of the REST API. */
export class ApiRoutes extends NestedStack {
  constructor(scope: Stack, api: apigw.RestApi, authorizer: apigw.RequestAuthorizer, functions: ServiceFunctions) {
    super(scope, 'ApiRoutes', { description: 'Vexdesk REST API resources and methods, from the route table' });
    // The methods are here, not under the API, so their Cognito finding is acknowledged here.
    acknowledge(
      this,
      'AwsSolutions-COG4',
      'Clients authenticate with scoped API keys, CI tokens or a browser session, all checked by the Lambda REQUEST authorizer; Cognito only signs people in, it never authorizes an API call.',
    );
    const topLevel = new Map<string, apigw.Resource>();
    // Each first path segment (`api`, `.well-known`) is created in this stack under the API's root, which stays
    // in the parent; everything below it follows through resourceForPath.
    const resourceForPath = (path: string): apigw.Resource => {
      const [first = '', ...rest] = path.replace(/^\//, '').split('/');
      let top = topLevel.get(first);
      if (!top) {
        top = new apigw.Resource(this, first, { parent: api.root, pathPart: first });
        topLevel.set(first, top);
      }
      return rest.length === 0 ? top : top.resourceForPath(rest.join('/'));
    };
    addRoutes(resourceForPath, authorizer, functions);
  }
}

function addRoutes(
  resourceForPath: (path: string) => apigw.Resource,
  authorizer: apigw.RequestAuthorizer,
  functions: ServiceFunctions,
): void {
  const integrations = new Map<EndpointGroup, apigw.LambdaIntegration>();
  const integrationFor = (group: EndpointGroup): apigw.LambdaIntegration => {
    let integration = integrations.get(group);
    if (!integration) {
      // One API-wide invoke permission per function instead of two per method.
      integration = new apigw.LambdaIntegration(functions.require(group), {
        proxy: true,
        scopePermissionToMethod: false,
      });
      integrations.set(group, integration);
    }
    return integration;
  };
  const corsResources = new Set<apigw.Resource>();

  for (const route of routes as readonly RouteDefinition[]) {
    const resource = resourceForPath(route.path);
    const method = resource.addMethod(
      route.method,
      integrationFor(route.group),
      route.scope === null
        ? { operationName: route.operationId, authorizationType: apigw.AuthorizationType.NONE }
        : // apiKeyRequired: the usage plan of the key the authorizer names throttles the call.
          {
            operationName: route.operationId,
            authorizationType: apigw.AuthorizationType.CUSTOM,
            authorizer,
            apiKeyRequired: true,
          },
    );
    if (route.scope === null) {
      acknowledge(
        method,
        'AwsSolutions-APIG4',
        `${route.method} ${route.path} is public by the spec: disclosures and the API description are read without credentials.`,
      );
      acknowledge(method, 'AwsSolutions-COG4', `${route.method} ${route.path} is public by the spec.`);
    }
    if (isPublicDisclosureRoute(route) && !corsResources.has(resource)) {
      corsResources.add(resource);
      addCorsPreflight(resource);
    }
  }
  for (const path of routePaths()) addMethodNotAllowed(resourceForPath(path), path);
}

/**
 * 405 with `Allow` for a method the route table does not serve on a path. API Gateway answers
 * an unknown method like an unknown path (MISSING_AUTHENTICATION_TOKEN, 404 here), so each
 * resource gets an `ANY` method — a specific method always wins over ANY — answered by a MOCK
 * integration: no Lambda, no authorizer, nothing of the team's quota spent.
 */
function addMethodNotAllowed(resource: apigw.Resource, path: string): void {
  const allow = methodsOfPath(path);
  const headers: Record<string, string> = { ...GATEWAY_RESPONSE_HEADERS, Allow: allow.join(', ') };
  const method = resource.addMethod(
    'ANY',
    new apigw.MockIntegration({
      // Binary media type '*/*': without CONVERT_TO_TEXT a MOCK integration fails on a request body.
      contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
      // The template ignores the body. A body of another media type is not passed to the MOCK
      // unmapped (which could fail as a 5xx): API Gateway refuses it, 415 → DEFAULT_4XX (400).
      requestTemplates: Object.fromEntries(
        METHOD_NOT_ALLOWED_MEDIA_TYPES.map((type) => [type, '{ "statusCode": 200 }']),
      ),
      passthroughBehavior: apigw.PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: String(METHOD_NOT_ALLOWED.statusCode),
          contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
          responseParameters: Object.fromEntries(
            Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, `'${value}'`]),
          ),
          responseTemplates: { 'application/json': methodNotAllowedTemplate(path, allow) },
        },
      ],
    }),
    {
      authorizationType: apigw.AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: String(METHOD_NOT_ALLOWED.statusCode),
          responseParameters: Object.fromEntries(
            Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
          ),
        },
      ],
    },
  );
  acknowledge(
    method,
    'AwsSolutions-APIG4',
    `ANY ${path} only answers 405 from a MOCK integration; the route table's methods on it keep their authorizer.`,
  );
  acknowledge(method, 'AwsSolutions-COG4', `ANY ${path} only answers 405 from a MOCK integration.`);
}

// A hand-built preflight instead of `addCorsPreflight`: with binary media
// type '*/*' API Gateway treats the OPTIONS request as binary, and a MOCK
// integration without CONVERT_TO_TEXT then fails with 500.
function addCorsPreflight(resource: apigw.Resource): void {
  // cdk-nag exempts OPTIONS methods from its authorization rules, so nothing to acknowledge here.
  const headers = {
    'Access-Control-Allow-Origin': "'*'",
    'Access-Control-Allow-Methods': "'GET,OPTIONS'",
    'Access-Control-Allow-Headers': "'Accept,Content-Type'",
    'Access-Control-Max-Age': "'86400'",
  };
  resource.addMethod(
    'OPTIONS',
    new apigw.MockIntegration({
      contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
      requestTemplates: { 'application/json': '{ "statusCode": 204 }' },
      integrationResponses: [
        {
          statusCode: '204',
          contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
          responseParameters: Object.fromEntries(
            Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value]),
          ),
        },
      ],
    }),
    {
      authorizationType: apigw.AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: '204',
          responseParameters: Object.fromEntries(
            Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
          ),
        },
      ],
    },
  );
}
