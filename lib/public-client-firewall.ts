/**
 * The API stage's regional web ACL. Clients reach the API through CloudFront (lib/console-hosting.ts), so:
 * - only requests that came through the distribution get in: CloudFront adds an origin header holding a
 *   generated secret, and a request without that value is refused (403) before any other rule;
 * - the per-client rules count the viewer's address, not the edge server's: a CloudFront Function writes
 *   it into True-Client-IP (replacing whatever the viewer sent) and the rules read that header
 *   (ForwardedIPConfig). X-Forwarded-For cannot serve: CloudFront appends the viewer's address to the
 *   value the viewer sent, and WAF reads the first address. A value that is no IP address counts as a match.
 * Usage plans need a key, which anonymous callers have none of, so two rate-based rules limit each client:
 * the disclosure routes, and the routes that start a sign-in or exchange a CI token (each writes an item).
 * A rate-limited request gets the WAF_FILTERED gateway response: 429 with Retry-After, our error body.
 * Added to the stack scope, so logical IDs stay those of the deployed web ACL (lib/stack-support.ts).
 */
import type { Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import {
  DEFAULT_SIGN_IN_CLIENT_LIMIT,
  PUBLIC_CLIENT_LIMITED_PATH,
  PUBLIC_CLIENT_WINDOW_SECONDS,
  SIGN_IN_CLIENT_LIMITED_PATHS,
} from '../shared/service/http/throttling';
import type { VexdeskSettings } from './settings';
import { acknowledge } from './stack-support';

/** The header the client-address CloudFront Function writes (lib/cloudfront/client-address.js). */
export const CLIENT_ADDRESS_HEADER = 'True-Client-IP';
/** The origin header CloudFront adds to every API request; its value is the origin secret. */
export const ORIGIN_VERIFY_HEADER = 'X-Vexdesk-Origin-Verify';

/** The value CloudFront sends in ORIGIN_VERIFY_HEADER and the web ACL expects: generated once per stack. */
export function createOriginSecret(scope: Stack): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'ApiOriginSecret', {
    description: `Vexdesk: the ${ORIGIN_VERIFY_HEADER} value CloudFront sends to API Gateway; the API's web ACL refuses requests without it`,
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
  });
  acknowledge(
    secret,
    'AwsSolutions-SMG4',
    'Not a credential of a person or service: it only tells requests that came through the distribution from direct ones, and both the distribution and the web ACL read it at deploy time; rotating it means redeploying the stack.',
  );
  return secret;
}

const matchPath = (path: string): wafv2.CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'CONTAINS',
    searchString: path,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

/** A rate-based rule per viewer address over the requests `scopeDown` selects. */
function perClientRule(
  name: string,
  priority: number,
  limit: number,
  scopeDownStatement: wafv2.CfnWebACL.StatementProperty,
): wafv2.CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    action: { block: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: `vexdesk-${name}`, sampledRequestsEnabled: true },
    statement: {
      rateBasedStatement: {
        aggregateKeyType: 'FORWARDED_IP',
        forwardedIpConfig: { headerName: CLIENT_ADDRESS_HEADER, fallbackBehavior: 'MATCH' },
        limit,
        evaluationWindowSec: PUBLIC_CLIENT_WINDOW_SECONDS,
        scopeDownStatement,
      },
    },
  };
}

export function createPublicClientFirewall(
  scope: Stack,
  api: apigw.RestApi,
  settings: VexdeskSettings,
  originSecret: secretsmanager.ISecret,
): wafv2.CfnWebACL {
  const acl = new wafv2.CfnWebACL(scope, 'PublicClientFirewall', {
    description: 'Vexdesk: requests through CloudFront only, per-client rate limits on the anonymous routes',
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'vexdesk-api', sampledRequestsEnabled: true },
    customResponseBodies: {
      'not-through-cloudfront': {
        contentType: 'APPLICATION_JSON',
        content: JSON.stringify({
          error: { code: 'forbidden', message: "Send requests to the service's public address, not to API Gateway" },
        }),
      },
    },
    rules: [
      {
        name: 'through-cloudfront-only',
        priority: 0,
        action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: 'not-through-cloudfront' } } },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: 'vexdesk-through-cloudfront-only',
          sampledRequestsEnabled: true,
        },
        statement: {
          notStatement: {
            statement: {
              byteMatchStatement: {
                fieldToMatch: { singleHeader: { Name: ORIGIN_VERIFY_HEADER } },
                positionalConstraint: 'EXACTLY',
                searchString: originSecret.secretValue.unsafeUnwrap(),
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          },
        },
      },
      perClientRule('public-client-rate-limit', 1, settings.publicClientLimit, matchPath(PUBLIC_CLIENT_LIMITED_PATH)),
      perClientRule('sign-in-rate-limit', 2, DEFAULT_SIGN_IN_CLIENT_LIMIT, {
        orStatement: { statements: SIGN_IN_CLIENT_LIMITED_PATHS.map(matchPath) },
      }),
    ],
  });
  const association = new wafv2.CfnWebACLAssociation(scope, 'PublicClientFirewallAssociation', {
    resourceArn: api.deploymentStage.stageArn,
    webAclArn: acl.attrArn,
  });
  // The ARN names the stage by name only: associate once the stage exists.
  association.node.addDependency(api.deploymentStage);
  return acl;
}
