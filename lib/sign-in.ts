/**
 * Browser sign-in (docs/sign-in.md): the external issuer from context, or a Cognito user pool with a
 * hosted domain and a public app client (code flow with PKCE, no secret). Only the sign-in function
 * needs the issuer; the authorizer checks sessions in the table. Added to the stack scope, so logical
 * IDs stay those of the deployed pool (lib/stack-support.ts).
 */
import { CfnOutput, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { VexdeskSettings } from './settings';
import { acknowledge } from './stack-support';

/** Tells the sign-in function its issuer and client; returns the user pool when the stack creates one. */
export function configureSignIn(
  scope: Stack,
  settings: VexdeskSettings,
  publicBaseUrl: string,
  signInFunction: lambda.Function | undefined,
): cognito.UserPool | undefined {
  let issuer: string;
  let clientId: string;
  let pool: cognito.UserPool | undefined;
  if (settings.signIn) {
    ({ issuer, clientId } = settings.signIn);
  } else {
    pool = new cognito.UserPool(scope, 'UserPool', {
      // Administrators create users; a member still needs an invitation in Vexdesk.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      pool,
      'AwsSolutions-COG8',
      'Threat protection needs the Cognito Plus feature plan; sign-in is MFA-required and customers with stricter needs bring their own IdP (docs/sign-in.md).',
    );
    pool.addDomain('HostedDomain', {
      cognitoDomain: { domainPrefix: settings.signInDomainPrefix ?? `vexdesk-${scope.node.addr.slice(0, 12)}` },
    });
    const client = pool.addClient('ConsoleClient', {
      generateSecret: false,
      authFlows: {},
      preventUserExistenceErrors: true,
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
        callbackUrls: [`${publicBaseUrl}/api/auth/callback`],
        logoutUrls: [publicBaseUrl],
      },
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
    });
    // The pool's ProviderURL attribute has no scheme; the issuer its tokens name is this URL.
    issuer = `https://cognito-idp.${scope.region}.${scope.urlSuffix}/${pool.userPoolId}`;
    clientId = client.userPoolClientId;
    new CfnOutput(scope, 'UserPoolId', {
      value: pool.userPoolId,
      description: "Cognito user pool of browser sign-in: create the members' users here",
    });
  }
  signInFunction?.addEnvironment('SIGN_IN_ISSUER', issuer);
  signInFunction?.addEnvironment('SIGN_IN_CLIENT_ID', clientId);
  return pool;
}
