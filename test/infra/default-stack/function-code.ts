/**
 * The stack deploys each function as lib/function-code.ts packages its entry. The tests that read the bundles
 * stage the run's builds instead (VexdeskStack's `functionCode` prop, ../stack-functions.test.ts), so this pins
 * the default. With bundling skipped, CDK names an asset by its construct path and its bundling options (the
 * entry among them): a function whose asset has the name `functionCode(entry)` gets at the same path is
 * packaged by `functionCode` from that entry.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LAMBDA_HANDLER } from '../../../lib/bundling';
import { functionCatalog } from '../../../lib/function-catalog';
import { functionCode } from '../../../lib/function-code';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import { createApp, functionPropertiesOf, logicalIdOf, resourcesOf, sharedStack } from '../support/synth';

let stack: VexdeskStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedStack());
});

describe("the functions' code", () => {
  it('is functionCode of each catalog entry, bundled by CDK (lib/function-code.ts)', () => {
    // The same construct paths in a stack of the same name, each function's code from functionCode alone.
    const alone = new Stack(createApp(), stack.node.id);
    const codeAlone = new Map(
      functionCatalog().map((spec) => {
        const fn = new lambda.Function(alone, stack.requireFunction(spec.name).node.id, {
          code: functionCode(spec.entry),
          handler: LAMBDA_HANDLER,
          runtime: lambda.Runtime.NODEJS_24_X,
        });
        return [spec.name, fn] as const;
      }),
    );
    const aloneResources = resourcesOf(Template.fromStack(alone));

    for (const [name, fn] of codeAlone) {
      const deployed = functionPropertiesOf(template, stack, name).Code;
      expect({ name, code: deployed }).toEqual({
        name,
        code: aloneResources[logicalIdOf(alone, fn)]?.Properties?.Code,
      });
    }
    // Every entry gets an asset of its own.
    const keys = [...codeAlone.keys()].map((name) => JSON.stringify(functionPropertiesOf(template, stack, name).Code));
    expect(new Set(keys).size).toBe(codeAlone.size);
  });
});
