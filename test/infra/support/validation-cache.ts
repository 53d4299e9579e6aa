/**
 * CDK validates every synthesized template with CloudFormation Validate (the
 * `@aws-cdk/core:validateAgainstDefaultRules` flag in cdk.json): a WebAssembly
 * engine that takes seconds to start in every test file and seconds per
 * template. Most infra test files synthesize the same default stack, so this
 * plugin is that same validator, answering a template it has already checked
 * in this test run with the report it gave then. Every distinct template is
 * still validated by the real engine once per run, and a report read back
 * fails synth exactly as the fresh one did.
 *
 * The reports live in the run's directory (./global-setup.ts); outside a jest run of the infra
 * project there is none, and each test file validates every template it synthesizes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CloudFormationValidatePlugin,
  type IPolicyValidationContext,
  type PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import { infraRunDir } from './global-setup';

/** Where a template path stood in the report: its index among the validated stacks. */
const TEMPLATE_INDEX = 'vexdesk-template-index:';

class RunCachedCloudFormationValidatePlugin extends CloudFormationValidatePlugin {
  private readonly reports = new Map<string, string>();

  override validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const stacks = context.stackTemplates;
    const key = createHash('sha256')
      .update(this.version ?? '')
      .update(
        JSON.stringify(
          stacks.map(({ stackConstructPath, accountId, region, templatePath }) => [
            stackConstructPath,
            accountId ?? null,
            region ?? null,
            readFileSync(templatePath, 'utf8'),
          ]),
        ),
      )
      .digest('hex');
    const stored = this.reports.get(key) ?? readStored(key);
    if (stored !== undefined) {
      this.reports.set(key, stored);
      return withTemplatePaths(JSON.parse(stored) as PolicyValidationPluginReport, stacks);
    }
    const report = super.validate(context);
    // Stored with each template path as its stack's index: the next synth writes its templates elsewhere.
    const portable = JSON.stringify(report, (field, value: unknown) =>
      field === 'templatePath' && typeof value === 'string'
        ? `${TEMPLATE_INDEX}${stacks.findIndex((stack) => stack.templatePath === value)}`
        : value,
    );
    this.reports.set(key, portable);
    store(key, portable);
    return report;
  }
}

function withTemplatePaths(
  report: PolicyValidationPluginReport,
  stacks: IPolicyValidationContext['stackTemplates'],
): PolicyValidationPluginReport {
  for (const violation of report.violations)
    for (const resource of violation.violatingResources) {
      const { templatePath } = resource as { templatePath?: string };
      if (templatePath?.startsWith(TEMPLATE_INDEX)) {
        const stack = stacks[Number(templatePath.slice(TEMPLATE_INDEX.length))];
        if (!stack) throw new Error(`validation cache: no stack for ${templatePath}`);
        (resource as { templatePath?: string }).templatePath = stack.templatePath;
      }
    }
  return report;
}

function cacheDir(): string | undefined {
  const runDir = infraRunDir();
  return runDir && join(runDir, 'validation');
}

function readStored(key: string): string | undefined {
  const dir = cacheDir();
  if (!dir) return undefined;
  try {
    return readFileSync(join(dir, `${key}.json`), 'utf8');
  } catch {
    return undefined;
  }
}

function store(key: string, report: string): void {
  const dir = cacheDir();
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  // Written whole, then renamed: a worker reading concurrently sees the report or nothing.
  const partial = join(dir, `${key}.${process.pid}.partial`);
  writeFileSync(partial, report);
  renameSync(partial, join(dir, `${key}.json`));
}

/** One per test file, as CDK keeps one default validator per process: the engine starts once. */
export const cachedCloudFormationValidation = new RunCachedCloudFormationValidatePlugin();
