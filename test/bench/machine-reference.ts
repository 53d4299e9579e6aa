/**
 * A fixed single-thread workload, timed before the benches run: the machines these benches run on differ by up
 * to 2x from one day to the next (docs/testing.md "Comparing figures across machines"), so a figure is only
 * comparable with one measured beside the same reference. The work is the kind the service does most (JSON
 * round trips of advisory-shaped records, SHA-256, integer hashing in JavaScript) and its result is checked, so
 * nothing can be optimised away.
 */
import { createHash } from 'node:crypto';
import { median } from './stats';

const RECORDS = Array.from({ length: 2_000 }, (_, index) => ({
  id: `GHSA-${index.toString(36).padStart(4, '0')}-xxxx-yyyy`,
  modified: '2026-01-01T00:00:00Z',
  aliases: [`CVE-2026-${String(index).padStart(5, '0')}`],
  summary: `A "quoted" summary of advisory ${index}, long enough to be escaped and copied`,
  affected: [
    {
      package: { ecosystem: 'npm', name: `@scope/package-${index % 97}` },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: `${index % 9}.${index % 7}.${index % 5}` }] }],
    },
  ],
}));
const HASHED = Buffer.alloc(64 * 1024 * 1024, 7);

/** One run of the workload; answers a value derived from all of it. */
function workload(): number {
  let check = 0;
  for (let round = 0; round < 20; round += 1) {
    const parsed = JSON.parse(JSON.stringify(RECORDS)) as typeof RECORDS;
    check += parsed.length;
  }
  check += createHash('sha256').update(HASHED).digest()[0] ?? 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < 8_000_000; index += 1) hash = Math.imul(hash ^ index, 0x01000193) >>> 0;
  return check + (hash & 1);
}

export interface MachineReference {
  /** Median wall time of a run, ms. */
  medianMs: number;
  /** Median CPU time of a run, ms: far below the wall time, the machine was busy with other work. */
  medianCpuMs: number;
}

export function measureMachineReference(runs = 7): MachineReference {
  workload(); // compiled and warm
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    if (workload() <= 0) throw new Error('machine reference workload answered nothing');
    walls.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { medianMs: median(walls), medianCpuMs: median(cpus) };
}

export function describeMachineReference({ medianMs, medianCpuMs }: MachineReference): string {
  return `Machine reference (test/bench/machine-reference.ts, a fixed single-thread workload): median ${medianMs.toFixed(0)} ms wall, ${medianCpuMs.toFixed(0)} ms CPU a run. Compare figures across machines by this ratio.`;
}
