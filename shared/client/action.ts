/**
 * The GitHub Action (action.yml): the same bundle as the CLI, started by the
 * runner with the step's inputs as INPUT_*. Upload → wait for the scan → gate on this build's
 * SBOM → outputs (GITHUB_OUTPUT) and a job summary (GITHUB_STEP_SUMMARY). Without a `token`
 * input it signs in with the job's OIDC token (docs/oidc.md). Exit codes as the CLI's.
 */
import * as core from '@actions/core';
import { connect, maskInActionsLog } from './connection';
import { CliError, EXIT_CODES, UsageError } from './errors';
import { decisionOf, DECISIONS, SEVERITIES, type Counts, type Decision, type Severity } from './findings';
import { describePolicy, hasCondition, type GatePolicy } from './gate-policy';
import { judge, loadCandidates, printGate, type GateResult } from './commands/gate';
import { printUpload, upload, type UploadResult } from './commands/upload';
import { sarifLog, writeSarif } from './commands/sarif';
import { parsePolicy, parseTimeout } from './options';
import { createOutput } from './output';

function input(name: string): string | undefined {
  return core.getInput(name) || undefined;
}

function flag(name: string): boolean {
  const value = (input(name) ?? 'false').toLowerCase();
  if (value !== 'true' && value !== 'false')
    throw new UsageError(`input ${name} must be true or false, got "${value}"`);
  return value === 'true';
}

/** `release` defaults to the tag being built, else the commit's short sha. */
export function defaultRelease(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_REF_TYPE === 'tag' && env.GITHUB_REF_NAME) return env.GITHUB_REF_NAME;
  return env.GITHUB_SHA ? env.GITHUB_SHA.slice(0, 7) : undefined;
}

export async function runAction(env: NodeJS.ProcessEnv): Promise<number> {
  try {
    return await act(env);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    core.error(error.message);
    core.setOutput('gate-result', 'error');
    return error.exitCode;
  }
}

async function act(env: NodeJS.ProcessEnv): Promise<number> {
  const out = createOutput(false);
  const token = input('token') ?? env.VEXDESK_TOKEN;
  if (token) maskInActionsLog(token, env);
  const sbom = input('sbom');
  const product = input('product');
  const release = input('release') ?? defaultRelease(env);
  if (!sbom) throw new UsageError("input sbom (the SBOM file's path) is required");
  if (!product) throw new UsageError("input product (the product's slug) is required");
  if (!release)
    throw new UsageError('input release is empty and the run has neither a tag nor GITHUB_SHA to default to');
  const policy: GatePolicy = parsePolicy({
    failOn: input('fail-on'),
    kev: flag('kev'),
    epss: input('epss'),
    untriaged: flag('untriaged'),
    fixableOnly: flag('fixable-only'),
    failOnUnscored: flag('fail-on-unscored'),
  });
  const timeoutMs = parseTimeout(input('timeout'));
  const api = await connect(
    {
      url: input('url') ?? env.VEXDESK_URL,
      token,
      team: input('team') ?? env.VEXDESK_TEAM,
      policy: input('policy'),
      audience: input('audience'),
    },
    env,
    out.progress,
  );

  const uploaded = await upload(
    api,
    { file: sbom, product, release, create: flag('create'), route: 'auto', timeoutMs },
    out,
  );
  printUpload(uploaded, out);
  const target = { sbomId: uploaded.sbomId };
  const outcome = hasCondition(policy)
    ? judge(
        target,
        await loadCandidates(api, target, policy, { timeoutMs, progress: out.progress }),
        uploaded.counts,
        policy,
      )
    : undefined;
  if (outcome) printGate(outcome, out);

  core.setOutput('product-id', uploaded.productId);
  core.setOutput('release-id', uploaded.releaseId);
  core.setOutput('sbom-id', uploaded.sbomId);
  core.setOutput('component-count', uploaded.componentCount);
  for (const [name, count] of Object.entries(uploaded.findings)) core.setOutput(`findings-${name}`, count);
  const sarifFile = input('sarif-file');
  if (sarifFile) {
    // Located at the SBOM's path in the repository, where code scanning shows the results.
    writeSarif(await sarifLog(api, target, sbom, { timeoutMs, progress: out.progress }), sarifFile);
    core.setOutput('sarif-file', sarifFile);
  }
  core.setOutput('gate-result', outcome?.result ?? 'skipped');
  core.setOutput('gate-failures', outcome?.failures.length ?? 0);
  await core.summary
    .addRaw(jobSummary(api.baseUrl, { product, release, file: sbom }, uploaded, outcome, policy))
    .write();

  if (outcome?.result === 'fail') {
    core.error(`Vexdesk gate failed: ${outcome.failures.length} finding(s) are ${describePolicy(policy)}`);
    return EXIT_CODES.gateFailed;
  }
  return EXIT_CODES.pass;
}

/** Markdown cells: a pipe or newline in a component name must not break the table. */
function cell(value: string): string {
  return value.replace(/[|\\]/g, (char) => `\\${char}`).replace(/[\r\n]+/g, ' ');
}

const DECISION_TITLES: Record<Decision, string> = {
  undecided: 'Undecided',
  affected: 'Affected',
  under_investigation: 'Under investigation',
  not_affected: 'Not affected',
  fixed: 'Fixed',
};
const ROW_TITLES: Record<Severity | 'KEV', string> = {
  KEV: '**Known exploited (KEV)**',
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  NONE: 'None / unscored',
};
const FAILURES_SHOWN = 25;

export function jobSummary(
  baseUrl: string,
  names: { product: string; release: string; file: string },
  uploaded: UploadResult,
  outcome: GateResult | undefined,
  policy: GatePolicy,
): string {
  const gateLine = !outcome
    ? 'Gate: not run (no condition given: set `fail-on`, `kev`, `epss`, `untriaged` or `fail-on-unscored`)'
    : outcome.result === 'pass'
      ? `Gate: ✅ **passed** — no finding is ${describePolicy(policy)}`
      : `Gate: ❌ **failed** — ${outcome.failures.length} finding(s) are ${describePolicy(policy)}`;
  const counts: Counts = uploaded.counts;
  const rows = (['KEV', ...SEVERITIES] as const).map(
    (row) =>
      `| ${ROW_TITLES[row]} | ${DECISIONS.map((decision) => String(counts[row][decision])).join(' | ')} | ${counts[row].total} |`,
  );
  const lines = [
    `## Vexdesk: ${cell(names.product)} ${cell(names.release)}`,
    '',
    gateLine,
    '',
    `\`${cell(names.file)}\`: ${uploaded.componentCount} components, ${counts.total} findings. ` +
      `[SBOM](${baseUrl}/api/sboms/${uploaded.sbomId}) · [SBOM findings](${baseUrl}/api/sboms/${uploaded.sbomId}/vulnerabilities) · [Release findings](${baseUrl}/api/releases/${uploaded.releaseId}/vulnerabilities)`,
    '',
    `| | ${DECISIONS.map((decision) => DECISION_TITLES[decision]).join(' | ')} | Total |`,
    `|---|${DECISIONS.map(() => '---:').join('|')}|---:|`,
    ...rows,
    '',
    'Decisions that count: expired or review-required decisions are undecided; not affected and fixed never fail the gate.',
  ];
  if (outcome && outcome.failures.length > 0) {
    lines.push(
      '',
      `### Failing findings${outcome.failures.length > FAILURES_SHOWN ? ` (first ${FAILURES_SHOWN} of ${outcome.failures.length})` : ''}`,
      '',
      '| Severity | Advisory | Component | KEV | EPSS | Decision | Fails on |',
      '|---|---|---|---|---:|---|---|',
      ...outcome.failures
        .slice(0, FAILURES_SHOWN)
        .map(
          ({ finding, reasons }) =>
            `| ${finding.severity} | ${cell(finding.cve_id)} | ${cell(`${finding.component_name}@${finding.component_version ?? ''}`)} | ${finding.is_kev ? '**yes**' : ''} | ${finding.epss_score === null ? '' : finding.epss_score.toFixed(3)} | ${decisionOf(finding)} | ${reasons.join(', ')} |`,
        ),
    );
  }
  return `${lines.join('\n')}\n`;
}
