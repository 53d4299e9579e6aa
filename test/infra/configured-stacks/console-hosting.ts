/**
 * The web console on AWS (docs/console-hosting.md): a private bucket behind CloudFront with origin access
 * control, `/api/*` and `/.well-known/csaf/*` to API Gateway uncached with every viewer header but Host,
 * the security headers, and the SPA rewrite (its JS run here against sample events). The deployment of a
 * built console and the one origin for console, API and sign-in: console-deployment.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { Match } from 'aws-cdk-lib/assertions';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../../shared/service/http/console-headers';
import { routes } from '../../../shared/service/http/routes';
import { CONSOLE_REWRITE_FUNCTION_FILE } from '../../../lib/console-hosting';
import { API_STAGE_NAME } from '../../../lib/rest-api';
import { distributionConfigOf, onlyResource, sharedConsoleStack } from '../support/console-synth';
import { assertResourceProperties, logicalIdOf, type Resources } from '../support/synth';

const { stack, template, resources } = sharedConsoleStack();
const only = (type: string, filter?: (resource: Resources[string]) => boolean) => onlyResource(resources, type, filter);

const distributionConfig = () => distributionConfigOf(stack, template);
const bucketId = logicalIdOf(stack, stack.console.bucket);
// Managed policy ids (AWS documentation "Use managed cache/origin request policies").
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe('the console bucket', () => {
  it('is private, encrypted, SSL-only and logged', () => {
    expect(resources[bucketId]?.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { LogFilePrefix: 'console/' },
    });
    expect(resources[bucketId]?.Properties).not.toHaveProperty('WebsiteConfiguration');
  });

  it('lets only this distribution read it, through origin access control, and refuses plain HTTP', () => {
    const [, policy] = only(
      'AWS::S3::BucketPolicy',
      (resource) => JSON.stringify(resource.Properties?.Bucket) === JSON.stringify({ Ref: bucketId }),
    );
    const statements = (policy.Properties as { PolicyDocument: { Statement: Array<Record<string, unknown>> } })
      .PolicyDocument.Statement;
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudfront::',
                  { Ref: 'AWS::AccountId' },
                  ':distribution/',
                  { Ref: logicalIdOf(stack, stack.console.distribution) },
                ],
              ],
            },
          },
        },
      },
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    // Hosting deploys write through the deployment function's role, never a public grant.
    expect(JSON.stringify(statements)).not.toContain('"Principal":"*","Action":"s3:GetObject"');
  });

  it('is the default origin, signed with an S3 origin access control', () => {
    const [oacId, oac] = only('AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties).toMatchObject({
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    });
    const config = distributionConfig();
    const consoleOrigin = config.Origins.find((origin) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);
    expect(consoleOrigin).toMatchObject({
      DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
      OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
  });
});

describe("the distribution's behaviours", () => {
  const config = distributionConfig();
  const behaviorOf = (pattern: string) => config.CacheBehaviors.find((behavior) => behavior.PathPattern === pattern);

  it('serves the console by default: cached, HTTPS, GET/HEAD, the rewrite on viewer requests, the console headers', () => {
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: CACHING_OPTIMIZED,
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      ResponseHeadersPolicyId: { Ref: logicalIdOf(stack, stack.console.consoleHeaders) },
      FunctionAssociations: [
        {
          EventType: 'viewer-request',
          FunctionARN: { 'Fn::GetAtt': [logicalIdOf(stack, stack.console.rewriteFunction), 'FunctionARN'] },
        },
      ],
    });
    // No blanket error page: an API 403/404 must reach the browser as the API answered it.
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  it.each([['/api/*'], ['/.well-known/csaf/*']])(
    "routes %s to API Gateway's stage, uncached, every method, every viewer header but Host",
    (pattern) => {
      const behavior = behaviorOf(pattern);
      expect(behavior).toMatchObject({
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        ViewerProtocolPolicy: 'https-only',
        ResponseHeadersPolicyId: { Ref: logicalIdOf(stack, stack.console.apiHeaders) },
      });
      // The viewer's address for the API's per-client limits (test/infra/default-stack/client-firewall.ts).
      expect(behavior?.FunctionAssociations).toEqual([
        {
          EventType: 'viewer-request',
          FunctionARN: { 'Fn::GetAtt': [logicalIdOf(stack, stack.console.clientAddressFunction), 'FunctionARN'] },
        },
      ]);
      const origin = config.Origins.find((candidate) => candidate.Id === behavior?.TargetOriginId);
      expect(origin).toMatchObject({
        DomainName: {
          'Fn::Join': [
            '',
            [
              { Ref: logicalIdOf(stack, stack.api) },
              '.execute-api.',
              { Ref: 'AWS::Region' },
              '.',
              { Ref: 'AWS::URLSuffix' },
            ],
          ],
        },
        OriginPath: `/${API_STAGE_NAME}`,
        CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
      });
    },
  );

  it('covers every route of the route table with an API behaviour', () => {
    const patterns = config.CacheBehaviors.map((behavior) => behavior.PathPattern!.replace(/\*$/, ''));
    for (const route of routes) expect(patterns.some((prefix) => route.path.startsWith(prefix))).toBe(true);
  });

  it('logs requests without cookies (they carry the session id)', () => {
    expect(config.Logging).toMatchObject({ IncludeCookies: false, Prefix: 'cloudfront/' });
  });
});

describe('the response headers', () => {
  function headersPolicy(id: string) {
    return (
      resources[id]!.Properties as {
        ResponseHeadersPolicyConfig: {
          SecurityHeadersConfig: Record<string, Record<string, unknown>>;
          CustomHeadersConfig: { Items: Array<{ Header: string; Value: string }> };
        };
      }
    ).ResponseHeadersPolicyConfig;
  }

  it('give the console a CSP without inline script, framing or plugins, and HSTS, nosniff, DENY, a referrer policy', () => {
    const policy = headersPolicy(logicalIdOf(stack, stack.console.consoleHeaders));
    const csp = String(policy.SecurityHeadersConfig.ContentSecurityPolicy?.ContentSecurityPolicy);
    expect(csp).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    const directives = new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'self'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(policy.SecurityHeadersConfig).toMatchObject({
      ContentSecurityPolicy: { Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'same-origin', Override: true },
    });
    expect(policy.CustomHeadersConfig.Items.map((item) => item.Header).sort()).toEqual([
      'Cross-Origin-Opener-Policy',
      'Permissions-Policy',
    ]);
  });

  it("give API responses the same transport headers but keep the API's own CSP (its HTML pages set theirs)", () => {
    const policy = headersPolicy(logicalIdOf(stack, stack.console.apiHeaders));
    expect(policy.SecurityHeadersConfig.ContentSecurityPolicy).toBeUndefined();
    expect(policy.SecurityHeadersConfig).toMatchObject({
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY' },
    });
  });
});

describe("the console rewrite (the CloudFront Function's own code, run in a VM)", () => {
  const code = readFileSync(CONSOLE_REWRITE_FUNCTION_FILE, 'utf8');
  const handler = runInNewContext(`${code}\nhandler`, {}) as (event: unknown) => { uri: string; headers: unknown };
  const rewrite = (uri: string) =>
    handler({
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: '192.0.2.1' },
      request: {
        method: 'GET',
        uri,
        querystring: { page: { value: '2' } },
        headers: { accept: { value: 'text/html' } },
        cookies: {},
      },
    });

  it('is the code the template deploys, on the JS 2.0 runtime', () => {
    assertResourceProperties(template, 'AWS::CloudFront::Function', {
      FunctionCode: code,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      AutoPublish: true,
    });
  });

  it.each([
    ['/'],
    ['/products'],
    ['/products/6f1c1c1e-0b3a-4a53-8f44-1b1d1d1d1d1d/releases'],
    ['/d/acme-widget-2-1-0'],
    ['/d/acme-widget-2-1-0/'],
    ['/settings/keys'],
  ])('serves index.html for the console route %s', (uri) => {
    expect(rewrite(uri).uri).toBe('/index.html');
  });

  it.each([
    ['/index.html'],
    ['/assets/index-abc123.js'],
    ['/assets/index-abc123.css'],
    ['/favicon.svg'],
    ['/assets/missing-file.js'],
  ])('passes the file %s to the bucket as asked (a missing one stays 404)', (uri) => {
    expect(rewrite(uri).uri).toBe(uri);
  });

  it('keeps the rest of the request as it was', () => {
    const request = rewrite('/d/some-slug');
    expect(request).toMatchObject({
      method: 'GET',
      querystring: { page: { value: '2' } },
      headers: { accept: { value: 'text/html' } },
    });
  });
});
