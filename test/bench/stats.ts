/** Small statistics helpers shared by the benches: medians and percentiles over samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function median(samples: number[]): number {
  return percentile(samples, 50);
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** Peak resident set size of a process (Linux VmHWM), in MB. */
export async function peakRssMb(pid: number): Promise<number | null> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

export function currentRssMb(pidStatus: string): number | null {
  const kb = /VmRSS:\s+(\d+) kB/.exec(pidStatus)?.[1];
  return kb ? Number(kb) / 1024 : null;
}

/** 0 … total - 1: a load's requests, taken by its clients in turn (each takes the next when its last is answered). */
export function requestIndices(total: number): number[] {
  return Array.from({ length: total }, (_, index) => index);
}
