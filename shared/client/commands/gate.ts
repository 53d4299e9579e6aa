/** `vexdesk gate --sbom ID | --release ID` with the policy's conditions: exit 0 pass, 1 failed. */
import type { ApiClient } from '../api-client';
import { EXIT_CODES } from '../errors';
import { countFindings, decisionOf, findingTotals, loadFindings, type FindingItem, type Target } from '../findings';
import { describePolicy, evaluateGate, type GateFailure, type GatePolicy } from '../gate-policy';
import { table, type Output } from '../output';

export interface GateResult {
  result: 'pass' | 'fail';
  target: Target;
  policy: GatePolicy;
  findings: ReturnType<typeof findingTotals>;
  failures: GateFailure[];
}

export function judge(target: Target, items: readonly FindingItem[], policy: GatePolicy): GateResult {
  const failures = evaluateGate(items, policy);
  return { result: failures.length === 0 ? 'pass' : 'fail', target, policy, findings: findingTotals(countFindings(items)), failures };
}

export async function gate(api: ApiClient, target: Target, policy: GatePolicy, timeoutMs: number, out: Output): Promise<number> {
  const items = await loadFindings(api, target, { timeoutMs, progress: out.progress });
  const outcome = judge(target, items, policy);
  printGate(outcome, out);
  return outcome.result === 'pass' ? EXIT_CODES.pass : EXIT_CODES.gateFailed;
}

const SHOWN = 50;

export function printGate(outcome: GateResult, out: Output): void {
  const { failures, findings } = outcome;
  const headline = outcome.result === 'pass'
    ? `gate passed: none of ${findings.total} findings is ${describePolicy(outcome.policy)} (decided not_affected/fixed never fail)`
    : `gate FAILED: ${failures.length} of ${findings.total} findings are ${describePolicy(outcome.policy)}`;
  const rows = failures.slice(0, SHOWN).map(({ finding, reasons }) => [
    finding.severity, finding.cve_id, finding.component_name, finding.component_version ?? '', finding.is_kev ? 'yes' : '',
    finding.epss_score === null ? '' : finding.epss_score.toFixed(3), decisionOf(finding), reasons.join(', '),
  ]);
  const more = failures.length > SHOWN ? `\n… and ${failures.length - SHOWN} more (--json lists all)` : '';
  const human = failures.length === 0 ? headline : `${headline}\n\n${table(['SEVERITY', 'CVE', 'COMPONENT', 'VERSION', 'KEV', 'EPSS', 'DECISION', 'FAILS ON'], rows)}${more}`;
  out.result(human, {
    result: outcome.result,
    ...outcome.target,
    policy: outcome.policy,
    findings,
    failing: failures.map(({ finding, reasons }) => ({
      id: finding.id, cve_id: finding.cve_id, advisory_id: finding.advisory_id, component_name: finding.component_name, component_version: finding.component_version,
      severity: finding.severity, is_kev: finding.is_kev, epss_score: finding.epss_score, decision: decisionOf(finding), reasons,
    })),
  });
}
