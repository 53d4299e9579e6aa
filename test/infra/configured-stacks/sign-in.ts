/**
 * Browser sign-in in the stack (docs/sign-in.md): by default a Cognito user pool with a hosted domain
 * and a public app client (code flow, PKCE, no secret) whose issuer the sign-in function gets; with an
 * external issuer in context, no pool and that issuer.
 */
import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { CONTEXT_KEYS, settingsFromContext } from '../../../lib/settings';
import { App } from 'aws-cdk-lib';
import { assertResourceProperties, logicalIdOf, resourcesOf, synthStack } from '../support/synth';

function signInEnvironment(
  template: ReturnType<typeof synthStack>['template'],
  stack: ReturnType<typeof synthStack>['stack'],
) {
  const id = logicalIdOf(stack, stack.functions.get('signin')!);
  return (resourcesOf(template)[id]!.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment
    .Variables;
}

describe('sign-in with the default Cognito user pool', () => {
  const { stack, template } = synthStack({
    props: {
      settings: settingsFromContext(new App({ context: { [CONTEXT_KEYS.signInDomainPrefix]: 'vexdesk-test' } }).node),
    },
  });

  it('creates a user pool only administrators add users to, with email sign-in and MFA required', () => {
    assertResourceProperties(template, 'AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12 }) },
    });
  });

  it('gives it a hosted domain', () => {
    assertResourceProperties(template, 'AWS::Cognito::UserPoolDomain', { Domain: 'vexdesk-test' });
  });

  it('registers a public client for the authorization code flow to the sign-in callback, without a secret', () => {
    assertResourceProperties(template, 'AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: Match.arrayWith(['openid', 'email', 'profile']),
      // On the CloudFront distribution, which serves console and API on one origin (test/infra/configured-stacks/console-deployment.ts).
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
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
    });
    const client = Object.values(resourcesOf(template)).find(
      (resource) => resource.Type === 'AWS::Cognito::UserPoolClient',
    );
    expect(client?.Properties?.AllowedOAuthFlows).not.toContain('implicit');
  });

  it('points the sign-in function, and only it, at the pool as issuer with the client id', () => {
    const environment = signInEnvironment(template, stack);
    expect(environment.SIGN_IN_ISSUER).toEqual({
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/',
          { Ref: expect.stringMatching(/^UserPool/) },
        ],
      ],
    });
    expect(environment.SIGN_IN_CLIENT_ID).toEqual({ Ref: expect.stringMatching(/^UserPoolConsoleClient/) });
    const others = Object.entries(resourcesOf(template))
      .filter(
        ([id, resource]) =>
          resource.Type === 'AWS::Lambda::Function' && id !== logicalIdOf(stack, stack.functions.get('signin')!),
      )
      .filter(([, resource]) => JSON.stringify(resource.Properties ?? {}).includes('SIGN_IN_ISSUER'));
    expect(others).toEqual([]);
  });
});

describe('sign-in with an external issuer', () => {
  const issuer = 'https://example.okta.com/oauth2/default';
  const { stack, template } = synthStack({
    props: {
      settings: settingsFromContext(
        new App({
          context: { [CONTEXT_KEYS.signInIssuer]: `${issuer}/`, [CONTEXT_KEYS.signInClientId]: '0oa-console' },
        }).node,
      ),
    },
  });

  it('creates no user pool and hands the function the configured issuer and client', () => {
    expect(
      Object.values(resourcesOf(template)).filter((resource) => resource.Type.startsWith('AWS::Cognito::')),
    ).toEqual([]);
    expect(signInEnvironment(template, stack)).toMatchObject({
      SIGN_IN_ISSUER: issuer,
      SIGN_IN_CLIENT_ID: '0oa-console',
    });
  });

  it('refuses an issuer without a client id, a plain-HTTP issuer and a bad domain prefix', () => {
    const settings = (context: Record<string, unknown>) => () => settingsFromContext(new App({ context }).node);
    expect(settings({ [CONTEXT_KEYS.signInIssuer]: issuer })).toThrow(/together/);
    expect(settings({ [CONTEXT_KEYS.signInIssuer]: 'http://idp.example', [CONTEXT_KEYS.signInClientId]: 'x' })).toThrow(
      /https/,
    );
    expect(settings({ [CONTEXT_KEYS.signInDomainPrefix]: 'Has_Upper' })).toThrow(/lowercase/);
  });
});
