/**
 * CloudFormation deploys at most 500 resources per stack. The REST API's resources and methods are a nested
 * stack of their own (lib/api-routes.ts), so both templates keep room for the next routes and functions.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { Template } from 'aws-cdk-lib/assertions';
import { VexdeskStack } from '../../../lib/vexdesk-stack';
import { createApp, logicalIdOf, resourcesOf, sharedStack, type Resources } from '../support/synth';

/** Fifty below CloudFormation's limit: a few routes or functions more must still deploy. */
const HEADROOM_LIMIT = 450;

let stack: VexdeskStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedStack());
});

describe('stack size', () => {
  it(`keeps the top-level stack under ${HEADROOM_LIMIT} resources`, () => {
    expect(Object.keys(resourcesOf(template)).length).toBeLessThan(HEADROOM_LIMIT);
  });

  it(`keeps the nested routes stack under ${HEADROOM_LIMIT} resources, and every method of the API in it`, () => {
    const routes = resourcesOf(Template.fromStack(stack.routes));
    expect(Object.keys(routes).length).toBeLessThan(HEADROOM_LIMIT);
    const topLevelTypes = Object.values(resourcesOf(template)).map((resource) => resource.Type);
    expect(topLevelTypes).not.toContain('AWS::ApiGateway::Method');
    expect(topLevelTypes).not.toContain('AWS::ApiGateway::Resource');
  });

  it('deploys the API only after the routes stack', () => {
    const [, deployment] = deploymentOf(resourcesOf(template));
    expect(deployment.DependsOn).toContain(logicalIdOf(stack, stack.routes.nestedStackResource!));
  });

  it('makes a new API deployment when a method in the routes stack changes, so a new route goes live', () => {
    const app = createApp();
    const changed = new VexdeskStack(app, 'Vexdesk');
    const extra = new apigw.Resource(changed.routes, 'extra', { parent: changed.api.root, pathPart: 'extra' });
    extra.addMethod('GET', new apigw.MockIntegration());
    const [before] = deploymentOf(resourcesOf(template));
    const [after] = deploymentOf(resourcesOf(Template.fromStack(changed)));
    expect(after).not.toEqual(before);
  });
});

function deploymentOf(resources: Resources): [string, Resources[string]] {
  const deployments = Object.entries(resources).filter(
    ([, resource]) => resource.Type === 'AWS::ApiGateway::Deployment',
  );
  expect(deployments).toHaveLength(1);
  return deployments[0]!;
}
