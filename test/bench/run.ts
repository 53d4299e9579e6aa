/**
 * `npm run bench [-- api|bundles|tenant|scan|vex|findings|batch|report|throttle|carry-over|cli|session|console|watch|corpus|notify|engine-writes|all]`: prints the figures
 * each issue names. With no argument: every figure of issue 9's performance table (scan, product
 * list, VEX through HTTP, bundle loads, each beside its target), issue 13's release findings list,
 * then the tenant-credential bench and issue 13's re-upload / carry-over of a 10k SBOM with 1,000 decisions.
 * Each section runs in its own process: configuration and AWS clients are
 * read once per process, and every section starts its own server and engines.
 * The run ends with every line that names a target, gathered from all sections.
 * Heavy runs live here, never in `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { describeMachineReference, measureMachineReference } from './machine-reference';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
const SECTIONS: Record<string, string> = {
  api: 'api.ts',
  bundles: 'bundles.ts',
  tenant: 'tenant.ts',
  scan: 'scan.ts',
  vex: 'vex.ts',
  findings: 'findings.ts',
  batch: 'batch.ts',
  report: 'report.ts',
  throttle: 'throttle.ts',
  'carry-over': 'carry-over.ts',
  cli: 'cli.ts',
  session: 'session.ts',
  console: 'console.ts',
  watch: 'watch.ts',
  corpus: 'corpus.ts',
  notify: 'notify.ts',
  'engine-writes': 'engine-writes.ts',
};

const requested = process.argv.slice(2).filter((arg) => arg !== '--');
const names =
  requested.length === 0
    ? ['scan', 'api', 'vex', 'findings', 'bundles', 'tenant', 'carry-over']
    : requested.includes('all')
      ? Object.keys(SECTIONS)
      : requested;
// Before the sections, while the machine is as quiet as the run will find it.
const reference = describeMachineReference(measureMachineReference());
console.log(`${reference}\n`);
let failed = false;
/** Every line of the sections' reports that names a target: repeated at the end, so one run ends with issue 9's table. */
const withTargets: string[] = [];
for (const name of names) {
  const file = SECTIONS[name];
  if (!file) {
    console.error(`unknown bench "${name}"; choose from ${Object.keys(SECTIONS).join(', ')}, all`);
    process.exit(2);
  }
  // Progress goes to stderr as it happens; each section prints its report on stdout when it ends.
  const result = spawnSync(process.execPath, [tsx, join(here, file)], {
    stdio: ['inherit', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout ?? '');
  withTargets.push(
    ...(result.stdout ?? '')
      .split('\n')
      .filter((line) => /\(target/.test(line))
      .map((line) => `  [${name}] ${line.trim()}`),
  );
  // The bundle bench exits 1 when a target is missed; keep going and report it at the end.
  if (result.status !== 0) failed = true;
  console.log('');
}
if (withTargets.length > 0) {
  console.log(
    `Every figure with a target, from the sections above (load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' / ')} at the end):`,
  );
  console.log(withTargets.join('\n'));
  console.log(reference);
}
process.exit(failed ? 1 : 0);
