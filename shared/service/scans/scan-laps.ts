/**
 * Wall time of each stage of one scan (docs/scanning.md "Where scan time goes"), logged with the
 * scan's result so a slow scan says where its time went, on AWS as locally (the carry-over bench
 * reads these lines). Stages that run side by side are one lap.
 */
import { logger } from '../logger';

export class ScanLaps {
  private last = performance.now();
  private readonly started = this.last;
  readonly laps: Record<string, number> = {};

  /** Closes the stage that ran since the previous lap (or the start) under `name`; a repeated name adds up. */
  lap(name: string): void {
    const now = performance.now();
    this.laps[name] = Math.round(((this.laps[name] ?? 0) + now - this.last) * 10) / 10;
    this.last = now;
  }

  /** Times a stage that runs beside others (it moves no lap): call the returned function when it ends. */
  span(name: string): () => void {
    const started = performance.now();
    return () => {
      this.laps[name] = Math.round(((this.laps[name] ?? 0) + performance.now() - started) * 10) / 10;
    };
  }

  log(fields: Record<string, unknown>): void {
    logger.info('scan stages', {
      ...fields,
      totalMs: Math.round(performance.now() - this.started),
      stagesMs: this.laps,
    });
  }
}
