/**
 * The console's deployment (a built console uploaded with its cache headers, or built at synth) and the
 * one origin console, API and sign-in share: the distribution, or a custom domain with its certificate
 * (docs/console-hosting.md).
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { ConsoleBuild, consoleSource } from '../../../lib/console-hosting';
import { CONTEXT_KEYS, settingsFromContext } from '../../../lib/settings';
import { distributionConfigOf, onlyResource, sharedConsoleStack } from '../support/console-synth';
import { assertResourceProperties, logicalIdOf, synthStack, type Resources } from '../support/synth';

const { consoleDir, stack, resources } = sharedConsoleStack();
const only = (type: string, filter?: (resource: Resources[string]) => boolean) => onlyResource(resources, type, filter);
const bucketId = logicalIdOf(stack, stack.console.bucket);

describe('the console deployment', () => {
  const deployments = Object.values(resources)
    .filter((resource) => resource.Type === 'Custom::CDKBucketDeployment')
    .map((resource) => resource.Properties as Record<string, unknown>);

  it('uploads hashed files for a year, never pruned, and the rest with no-cache, invalidating index.html', () => {
    expect(deployments).toHaveLength(2);
    const hashed = deployments.find((deployment) => JSON.stringify(deployment.Include) === '["assets/*"]');
    const entry = deployments.find((deployment) => JSON.stringify(deployment.Exclude) === '["assets/*"]');
    expect(hashed).toMatchObject({
      Exclude: ['*'],
      Prune: false,
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
      DestinationBucketName: { Ref: bucketId },
    });
    expect(entry).toMatchObject({
      Prune: true,
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionPaths: ['/index.html'],
      DistributionId: { Ref: logicalIdOf(stack, stack.console.distribution) },
    });
  });

  it('refuses a console directory without index.html at synth', () => {
    const empty = mkdtempSync(join(tmpdir(), 'vexdesk-empty-console-'));
    try {
      expect(() => consoleSource(empty)).toThrow(/has no index\.html \(run npm run build:web\)/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('builds the console at synth by default, and says what to do when the project cannot', () => {
    expect(() => new ConsoleBuild('build:no-such-console').tryBundle(consoleDir)).toThrow(
      /package\.json has no "build:no-such-console" script.*vexdesk:consoleAssets/,
    );
  });
});

describe('one origin for console, API and sign-in', () => {
  const distributionDomain = {
    'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(stack, stack.console.distribution), 'DomainName'] }]],
  };

  it('names the distribution as PUBLIC_BASE_URL on every function', () => {
    for (const fn of stack.functions.values()) {
      const variables = (
        resources[logicalIdOf(stack, fn)]!.Properties as { Environment: { Variables: Record<string, unknown> } }
      ).Environment.Variables;
      expect(variables.PUBLIC_BASE_URL).toEqual(distributionDomain);
    }
  });

  it('registers the Cognito client (PKCE, no secret, code flow) with the callback and sign-out on the distribution', () => {
    const [, client] = only('AWS::Cognito::UserPoolClient');
    expect(client.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      CallbackURLs: [
        {
          'Fn::Join': [
            '',
            [
              'https://',
              { 'Fn::GetAtt': [logicalIdOf(stack, stack.console.distribution), 'DomainName'] },
              '/api/auth/callback',
            ],
          ],
        },
      ],
      LogoutURLs: [distributionDomain],
    });
  });

  it('serves a custom domain with its certificate, TLS 1.2 and SNI, and names it everywhere', () => {
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/1f2e3d4c-0000-4000-8000-000000000000';
    const settings = settingsFromContext(
      new App({
        context: {
          [CONTEXT_KEYS.publicBaseUrl]: 'https://vex.acme.example',
          [CONTEXT_KEYS.certificateArn]: certificateArn,
        },
      }).node,
    );
    const custom = synthStack({ props: { settings: { ...settings, consoleAssets: consoleDir } } });
    const config = distributionConfigOf(custom.stack, custom.template);
    expect(config.Aliases).toEqual(['vex.acme.example']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    assertResourceProperties(custom.template, 'AWS::Cognito::UserPoolClient', {
      CallbackURLs: ['https://vex.acme.example/api/auth/callback'],
      LogoutURLs: ['https://vex.acme.example'],
    });
  });

  it('attaches an edge web ACL given by ARN, and refuses a regional one', () => {
    const webAclArn =
      'arn:aws:wafv2:us-east-1:123456789012:global/webacl/vexdesk-edge/0f1e2d3c-0000-4000-8000-000000000000';
    const settings = settingsFromContext(
      new App({
        context: {
          [CONTEXT_KEYS.cloudFrontWebAclArn]: webAclArn,
          [CONTEXT_KEYS.consoleAssets]: 'test/fixtures/console',
        },
      }).node,
    );
    expect(settings.consoleAssets).toMatch(/^\/.*test\/fixtures\/console$/);
    const withAcl = synthStack({ props: { settings } });
    const config = distributionConfigOf(withAcl.stack, withAcl.template);
    expect(config.WebACLId).toBe(webAclArn);
    expect(() =>
      settingsFromContext(
        new App({
          context: { [CONTEXT_KEYS.cloudFrontWebAclArn]: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/x/y' },
        }).node,
      ),
    ).toThrow(/CLOUDFRONT-scope/);
  });

  it('refuses a certificate without the custom domain, or outside us-east-1', () => {
    const settings = (context: Record<string, unknown>) => () => settingsFromContext(new App({ context }).node);
    expect(settings({ [CONTEXT_KEYS.certificateArn]: 'arn:aws:acm:us-east-1:123456789012:certificate/abc' })).toThrow(
      /needs vexdesk:publicBaseUrl/,
    );
    expect(
      settings({
        [CONTEXT_KEYS.publicBaseUrl]: 'https://vex.acme.example',
        [CONTEXT_KEYS.certificateArn]: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
      }),
    ).toThrow(/us-east-1/);
  });
});
