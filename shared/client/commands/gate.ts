/** `vexdesk gate --sbom ID | --release ID` with the policy's conditions: exit 0 pass, 1 failed. */
import type { ApiClient } from '../api-client';
import { EXIT_CODES } from '../errors';
import {
  decisionOf,
  fetchCounts,
  findingTotals,
  loadFindings,
  type Counts,
  type Finding,
  type Target,
  type WaitOptions,
} from '../findings';
import {
  candidateQueries,
  defaultOrder,
  describePolicy,
  evaluateGate,
  type GateFailure,
  type GatePolicy,
} from '../gate-policy';
import { table, type Output } from '../output';

export interface GateResult {
  result: 'pass' | 'fail';
  target: Target;
  policy: GatePolicy;
  findings: ReturnType<typeof findingTotals>;
  failures: GateFailure[];
}

/** The findings that can fail the gate: the union of each condition's filtered list, in the lists' order. */
export async function loadCandidates(
  api: ApiClient,
  target: Target,
  policy: GatePolicy,
  options: WaitOptions,
): Promise<Finding[]> {
  const lists = await Promise.all(candidateQueries(policy).map((query) => loadFindings(api, target, options, query)));
  const byId = new Map<string, Finding>();
  for (const item of lists.flat()) byId.set(item.id, item);
  return [...byId.values()].sort(defaultOrder);
}

export function judge(target: Target, candidates: readonly Finding[], counts: Counts, policy: GatePolicy): GateResult {
  const failures = evaluateGate(candidates, policy);
  return { result: failures.length === 0 ? 'pass' : 'fail', target, policy, findings: findingTotals(counts), failures };
}

export async function gate(
  api: ApiClient,
  target: Target,
  policy: GatePolicy,
  timeoutMs: number,
  out: Output,
): Promise<number> {
  const options = { timeoutMs, progress: out.progress };
  const [candidates, counts] = await Promise.all([
    loadCandidates(api, target, policy, options),
    fetchCounts(api, target, options),
  ]);
  const outcome = judge(target, candidates, counts, policy);
  printGate(outcome, out);
  return outcome.result === 'pass' ? EXIT_CODES.pass : EXIT_CODES.gateFailed;
}

const SHOWN = 50;

export function printGate(outcome: GateResult, out: Output): void {
  const { failures, findings } = outcome;
  const headline =
    outcome.result === 'pass'
      ? `gate passed: none of ${findings.total} findings is ${describePolicy(outcome.policy)} (decided not_affected/fixed never fail)`
      : `gate FAILED: ${failures.length} of ${findings.total} findings are ${describePolicy(outcome.policy)}`;
  const rows = failures
    .slice(0, SHOWN)
    .map(({ finding, reasons }) => [
      finding.severity,
      finding.cve_id,
      finding.component_name,
      finding.component_version ?? '',
      finding.is_kev ? 'yes' : '',
      finding.epss_score === null ? '' : finding.epss_score.toFixed(3),
      decisionOf(finding),
      reasons.join(', '),
    ]);
  const more = failures.length > SHOWN ? `\n… and ${failures.length - SHOWN} more (--json lists all)` : '';
  const human =
    failures.length === 0
      ? headline
      : `${headline}\n\n${table(['SEVERITY', 'CVE', 'COMPONENT', 'VERSION', 'KEV', 'EPSS', 'DECISION', 'FAILS ON'], rows)}${more}`;
  out.result(human, {
    result: outcome.result,
    ...outcome.target,
    policy: outcome.policy,
    findings,
    failing: failures.map(({ finding, reasons }) => ({
      id: finding.id,
      cve_id: finding.cve_id,
      advisory_id: finding.advisory_id,
      component_name: finding.component_name,
      component_version: finding.component_version,
      severity: finding.severity,
      is_kev: finding.is_kev,
      epss_score: finding.epss_score,
      decision: decisionOf(finding),
      reasons,
    })),
  });
}
