/**
 * What API Gateway hands a Lambda function, built for one local request: the proxy event
 * (payload format 1.0), the REQUEST authorizer's event and the invocation context.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import type { EndpointGroup, RouteDefinition } from '../service/http/routes';
import { firstValues } from './api-gateway-request';

const STAGE = 'api';

/** Who sent the request, as API Gateway reports it in the event's request context. */
export interface ProxyClient {
  httpVersion: string;
  host: string | undefined;
  sourceIp: string | undefined;
  userAgent: string | undefined;
}

export function clientOf(request: IncomingMessage): ProxyClient {
  return {
    httpVersion: request.httpVersion,
    host: request.headers.host,
    sourceIp: request.socket.remoteAddress,
    userAgent: request.headers['user-agent'],
  };
}

export interface ProxyRequest {
  client: ProxyClient;
  url: URL;
  method: string;
  requestId: string;
  route: RouteDefinition;
  /** Single-value headers (the last value of a repeated name). */
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  multiValueQuery: Record<string, string[]>;
  pathParameters: Record<string, string> | null;
  body: Buffer;
}

export function proxyEvent(input: ProxyRequest): APIGatewayProxyEvent {
  const { client, url, method, requestId, route, multiValueQuery } = input;
  const now = new Date();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: method,
    headers: input.headers,
    multiValueHeaders: input.multiValueHeaders,
    queryStringParameters: firstValues(multiValueQuery),
    multiValueQueryStringParameters: Object.keys(multiValueQuery).length ? multiValueQuery : null,
    pathParameters: input.pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      resourceId: 'local',
      stage: STAGE,
      requestId,
      extendedRequestId: requestId,
      resourcePath: route.path,
      httpMethod: method,
      path: `/${STAGE}${url.pathname}`,
      protocol: `HTTP/${client.httpVersion}`,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      domainName: client.host ?? 'localhost',
      identity: {
        sourceIp: client.sourceIp ?? '127.0.0.1',
        userAgent: client.userAgent ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
      // Set once the authorizer has allowed the request.
      authorizer: null,
    },
    // binaryMediaTypes '*/*' on the deployed API: every body arrives base64-encoded.
    body: input.body.length ? input.body.toString('base64') : null,
    isBase64Encoded: input.body.length > 0,
  };
}

/** The REQUEST authorizer's event for a request whose proxy event is `event`. */
export function authorizerEvent(event: APIGatewayProxyEvent): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${event.httpMethod}${event.path}`,
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    pathParameters: event.pathParameters,
    stageVariables: null,
    requestContext: { ...event.requestContext, authorizer: undefined },
  };
}

/** The invocation context of an endpoint group's function. */
export function lambdaContext(group: EndpointGroup): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `vexdesk-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:vexdesk-${group}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/vexdesk-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
