/**
 * cdk-nag AwsSolutions over the whole app. cdk-nag 3 is a CDK policy
 * validation plugin: findings no longer surface as Annotations, so the tests
 * call the pack's `validateScope` (its documented test entry point) and read
 * acknowledgments from CDK's `Validations` metadata.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { sharedStack } from '../support/synth';

interface Finding {
  ruleName: string;
  severity: string;
  paths: string[];
}

interface Acknowledgment {
  id: string;
  reason: string;
  path: string;
}

function findingsOf(report: ReturnType<AwsSolutionsChecks['validateScope']>): Finding[] {
  return report.violations.map((violation) => ({
    ruleName: violation.ruleName,
    severity: violation.severity ?? 'error',
    paths: violation.violatingResources.map((resource) => resource.constructPath ?? ''),
  }));
}

function acknowledgmentsOf(app: App): Acknowledgment[] {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          // CDK stores the id namespaced (`Annotation::AwsSolutions-S1`); cdk-nag matches it without the namespace.
          id: id.replace(/^annotation::/i, ''),
          reason,
          path: construct.node.path,
        })),
      ),
  );
}

let app: App;
let findings: Finding[];
let rawFindings: Finding[];

beforeAll(() => {
  ({ app } = sharedStack());
  findings = findingsOf(new AwsSolutionsChecks(app).validateScope(app));

  // The same pack with acknowledgments ignored, to check that each one still
  // answers a real finding. `isAcknowledged` is cdk-nag's internal lookup; if
  // it is ever renamed, the stale-acknowledgment test fails loudly, not silently.
  const blind = new AwsSolutionsChecks(app);
  (blind as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  rawFindings = findingsOf(blind.validateScope(app));
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged errors', () => {
    expect(findings.filter((finding) => finding.severity === 'error')).toEqual([]);
  });

  it('reports no unacknowledged warnings either', () => {
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgment a written reason', () => {
    const acknowledgments = acknowledgmentsOf(app);

    expect(acknowledgments.length).toBeGreaterThan(0);
    expect(acknowledgments.filter((acknowledgment) => acknowledgment.reason.trim().length < 30)).toEqual([]);
  });

  it('acknowledges only findings that actually occur under the acknowledging construct', () => {
    const stale = acknowledgmentsOf(app).filter(
      (acknowledgment) =>
        !rawFindings.some(
          (finding) =>
            finding.ruleName === acknowledgment.id &&
            finding.paths.some((path) => path === acknowledgment.path || path.startsWith(`${acknowledgment.path}/`)),
        ),
    );
    expect(stale.map(({ id, path }) => `${id} at ${path}`)).toEqual([]);
  });

  it('stays free of findings with X-Ray tracing switched on', () => {
    const { app: tracedApp } = sharedStack({ tracing: true });

    expect(findingsOf(new AwsSolutionsChecks(tracedApp).validateScope(tracedApp))).toEqual([]);
  });
});
