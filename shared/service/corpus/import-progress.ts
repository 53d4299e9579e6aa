/**
 * The admin CLI's progress report for `corpus import`: on a terminal, one line redrawn in place with a
 * bar, the rate and the time left; otherwise (a pipe, a log) a JSON line every few seconds, so a
 * script or CI log can follow a long import.
 */
import type { CorpusFileProgress } from './import';

const JSON_EVERY_MS = 5_000;
const TTY_EVERY_MS = 200;
const BAR = 24;

export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s` : `${Math.round(seconds)}s`;
}

/** A progress callback for `importCorpusFiles` and `done()` to end the report. */
export function importProgressReporter(output: ProgressOutput, now: () => number = () => Date.now()) {
  const started = now();
  let shown = 0;
  let drawn = false;
  const report = (progress: CorpusFileProgress, force = false) => {
    const at = now();
    if (!force && at - shown < (output.isTTY ? TTY_EVERY_MS : JSON_EVERY_MS)) return;
    shown = at;
    const seconds = (at - started) / 1000;
    const rate = seconds > 0 ? progress.read / seconds : 0;
    const total = progress.total;
    const etaSeconds = total !== undefined && rate > 0 ? (total - progress.read) / rate : undefined;
    const { written, unchanged, errors } = progress.summary;
    if (!output.isTTY) {
      output.write(
        `${JSON.stringify({
          type: 'progress',
          path: progress.path,
          read: progress.read,
          ...(total !== undefined ? { total } : {}),
          written,
          unchanged,
          errors,
          recordsPerSecond: Math.round(rate),
          ...(etaSeconds !== undefined ? { etaSeconds: Math.round(etaSeconds) } : {}),
        })}\n`,
      );
      return;
    }
    const fraction = total ? Math.min(1, progress.read / total) : 0;
    const filled = Math.round(fraction * BAR);
    const bar = total
      ? `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% `
      : '';
    const count = total
      ? `${progress.read.toLocaleString('en')}/${total.toLocaleString('en')}`
      : progress.read.toLocaleString('en');
    output.write(
      `\r${bar}${count} records, ${Math.round(rate).toLocaleString('en')}/s, ETA ${duration(etaSeconds ?? Number.NaN)}, written ${written.toLocaleString('en')}\u001b[K`,
    );
    drawn = true;
  };
  return {
    onProgress: (progress: CorpusFileProgress) => report(progress),
    done: () => {
      if (drawn) output.write('\n');
    },
  };
}
