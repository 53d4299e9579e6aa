/**
 * Throttling per anonymous client: usage plans need a key, which anonymous
 * callers have none of, so a WAF rate-based rule keyed by source IP limits
 * each client on the disclosure routes. A blocked request gets the
 * WAF_FILTERED gateway response: 429 with Retry-After, our error body.
 * Added to the stack scope, so logical IDs stay those of the deployed web ACL (lib/stack-support.ts).
 */
import type { Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { PUBLIC_CLIENT_LIMITED_PATH, PUBLIC_CLIENT_WINDOW_SECONDS } from '../shared/service/http/throttling';
import type { VexdeskSettings } from './settings';

export function createPublicClientFirewall(
  scope: Stack,
  api: apigw.RestApi,
  settings: VexdeskSettings,
): wafv2.CfnWebACL {
  const visibility = (metricName: string) => ({
    cloudWatchMetricsEnabled: true,
    metricName,
    sampledRequestsEnabled: true,
  });
  const acl = new wafv2.CfnWebACL(scope, 'PublicClientFirewall', {
    description: 'Vexdesk: per-client rate limit on the anonymous disclosure routes',
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('vexdesk-api'),
    rules: [
      {
        name: 'public-client-rate-limit',
        priority: 0,
        action: { block: {} },
        visibilityConfig: visibility('vexdesk-public-client-rate-limit'),
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'IP',
            limit: settings.publicClientLimit,
            evaluationWindowSec: PUBLIC_CLIENT_WINDOW_SECONDS,
            scopeDownStatement: {
              byteMatchStatement: {
                fieldToMatch: { uriPath: {} },
                positionalConstraint: 'CONTAINS',
                searchString: PUBLIC_CLIENT_LIMITED_PATH,
                textTransformations: [{ priority: 0, type: 'NONE' }],
              },
            },
          },
        },
      },
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
