/**
 * Render bench for the compliance report: 10,000 components + 2,000 findings must render
 * in ≤ 1 s (median). Run: `npx tsx test/bench/report-render.ts [iterations]`.
 */
import { pathToFileURL } from 'node:url';
import { buildSampleReportInput } from '../../shared/service/compliance/fixtures';
import { renderComplianceReport } from '../../shared/service/compliance/report';

export const REPORT_RENDER_BUDGET_MS = 1000;

export interface ReportRenderBench {
  iterations: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  htmlBytes: number;
  withinBudget: boolean;
}

export function benchReportRender(iterations = 9, components = 10_000, findings = 2_000): ReportRenderBench {
  // Input built once: the bench measures validation + view model + templating + hashing.
  const input = buildSampleReportInput({ components, findings });
  renderComplianceReport(input); // warm-up: template compilation and JIT happen at cold start, not per request
  const timings: number[] = [];
  let htmlBytes = 0;
  for (let i = 0; i < iterations; i += 1) {
    const started = performance.now();
    const { html } = renderComplianceReport(input);
    timings.push(performance.now() - started);
    htmlBytes = Buffer.byteLength(html, 'utf8');
  }
  timings.sort((a, b) => a - b);
  const medianMs = timings[Math.floor(timings.length / 2)] ?? Number.NaN;
  const result: ReportRenderBench = {
    iterations,
    medianMs: Math.round(medianMs * 10) / 10,
    minMs: Math.round((timings[0] ?? Number.NaN) * 10) / 10,
    maxMs: Math.round((timings.at(-1) ?? Number.NaN) * 10) / 10,
    htmlBytes,
    withinBudget: medianMs <= REPORT_RENDER_BUDGET_MS,
  };
  console.log(
    `report render (${components} components, ${findings} findings): median ${result.medianMs} ms ` +
      `(min ${result.minMs}, max ${result.maxMs}, n=${iterations}), ${(htmlBytes / 1024 / 1024).toFixed(2)} MiB HTML, ` +
      `budget ${REPORT_RENDER_BUDGET_MS} ms: ${result.withinBudget ? 'OK' : 'EXCEEDED'}`,
  );
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const iterations = Number(process.argv[2] ?? 9);
  const { withinBudget } = benchReportRender(Number.isInteger(iterations) && iterations > 0 ? iterations : 9);
  if (!withinBudget) process.exitCode = 1;
}
