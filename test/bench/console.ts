/**
 * Console bench (issue 12 item 4: "the findings table stays responsive at 5,000 findings"): a release
 * of 5,000 findings (one SBOM of 5,000 vulnerable components, a real scan), its page in Chromium
 * (playwright-core, signed in through the embedded provider's form), timing what a triager does:
 * open the release, show 500 rows a page, page on, sort by CVSS, select a page of rows. Each figure is
 * from the click to the table showing the result (the server's paging keeps the DOM at one page), with
 * the main thread's long tasks (> 50 ms) over the whole run. Also the first-load JavaScript size.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { buildConsole } from '../../bin/build-web';
import { launchBrowser } from '../e2e/browser';
import { median, ms } from './stats';
import { printReport } from './main';

const FINDINGS = 5000;
const RUNS = 5;

export async function benchConsole(): Promise<string> {
  await buildConsole();
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-console-'));
  const server = await startServerProcess(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
  });
  const lines = [
    `Console bench (${FINDINGS.toLocaleString('en')} findings in one release, Chromium via playwright-core; load ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}):`,
  ];
  const browser = await launchBrowser();
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines, server.baseUrl);
    const { importAdvisories } = await import('../../shared/service/corpus/import');
    const { parseOsvAdvisory } = await import('../../shared/service/corpus/parse/osv');
    const { cycloneDxSbom } = await import('../support/seed');
    const { Scans } = await import('../../shared/service/scans/scans');
    const { OPERATOR_ACTOR } = await import('../../shared/service/identity/actor');
    const { runAsTeam } = await import('../../shared/service/request-context');
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      apiKey: string;
      teamId: string;
      login: { email: string; password: string };
    };
    const headers = { Authorization: `Bearer ${bootstrap.apiKey}`, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- bench reads arbitrary JSON
    };

    const suffix = randomUUID().slice(0, 8);
    const packages = Array.from({ length: FINDINGS }, (_, index) => ({
      name: `bench-${suffix}-lib${index}`,
      version: '1.0.0',
      index,
    }));
    await importAdvisories(
      packages.map((pkg) => ({
        source: 'bench',
        advisory: parseOsvAdvisory({
          id: `GHSA-bench-${suffix}-${pkg.index}`,
          modified: '2026-01-01T00:00:00Z',
          aliases: [`CVE-2093-${String(100000 + pkg.index)}`],
          summary: `Bench issue ${pkg.index}`,
          details: 'x',
          severity: [
            {
              type: 'CVSS_V3',
              score:
                pkg.index % 2 === 0
                  ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'
                  : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
            },
          ],
          affected: [
            {
              package: { ecosystem: 'npm', name: pkg.name },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        }),
      })),
    );
    const product = (await call('POST', '/api/products', { name: 'Console bench', slug: 'console-bench' })).body.data;
    const releaseId = String(
      (await call('POST', `/api/products/${String(product.id)}/releases`, { version: '1.0.0' })).body.data.id,
    );
    const content = cycloneDxSbom(
      packages.map((pkg) => ({ name: pkg.name, version: pkg.version, purl: `pkg:npm/${pkg.name}@${pkg.version}` })),
    );
    const upload = await call('POST', '/api/sboms/upload', { releaseId, content });
    if (upload.status !== 201) throw new Error(`upload: ${upload.status}`);
    // The scan runs here against the server's engines, as the findings bench does (5,000 findings outlast the gateway's 29 s on a loaded machine).
    const scan = await runAsTeam(bootstrap.teamId, () =>
      Scans.run(bootstrap.teamId, OPERATOR_ACTOR, String(upload.body.data.id)),
    );
    if (scan.findingCount !== FINDINGS) throw new Error(`scan found ${scan.findingCount} of ${FINDINGS}`);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.baseUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.locator('#email').fill(bootstrap.login.email);
    await page.locator('#password').fill(bootstrap.login.password);
    await page.locator('#password').press('Enter');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // Every page load records its main-thread long tasks; read after each run (a navigation starts afresh).
    await page.addInitScript(
      `window.__longTasks = []; new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); }).observe({ type: 'longtask', buffered: true });`,
    );
    const longTasks: number[] = [];

    const rows = page.locator('table.findings tbody tr');
    const timed = async (action: () => Promise<void>, done: () => Promise<unknown>): Promise<number> => {
      const started = performance.now();
      await action();
      await done();
      return performance.now() - started;
    };
    const figures: Record<string, number[]> = { open: [], rows500: [], nextPage: [], sortCvss: [], selectPage: [] };
    for (let run = 0; run < RUNS; run += 1) {
      figures.open!.push(
        await timed(
          async () => {
            await page.goto(`${server.baseUrl}/releases/${releaseId}`);
          },
          () => page.getByText(`${FINDINGS} findings ·`).waitFor(),
        ),
      );
      await rows.nth(99).waitFor();
      figures.rows500!.push(
        await timed(
          async () => {
            await page.getByLabel('Rows').selectOption('500');
          },
          () => rows.nth(499).waitFor(),
        ),
      );
      figures.nextPage!.push(
        await timed(
          async () => {
            await page.getByRole('button', { name: 'Next' }).click();
          },
          () => page.getByText('Page 2 of 10').waitFor(),
        ),
      );
      await page.locator('table.findings[aria-busy="false"]').waitFor();
      figures.sortCvss!.push(
        await timed(
          async () => {
            await page.getByRole('button', { name: 'CVSS' }).click();
          },
          () =>
            page
              .getByText('Page 1 of 10')
              .waitFor()
              .then(() => page.locator('table.findings[aria-busy="false"]').waitFor()),
        ),
      );
      figures.selectPage!.push(
        await timed(
          async () => {
            await page.getByRole('checkbox', { name: 'Select every finding on this page' }).check();
          },
          () => page.getByRole('button', { name: 'Apply to 500 selected' }).waitFor(),
        ),
      );
      longTasks.push(...(await page.evaluate<number[]>('window.__longTasks ?? []')));
    }
    const html = readFileSync(join(import.meta.dirname, '../../web/dist/index.html'), 'utf8');
    const script = /<script[^>]*src="([^"]+)"/.exec(html)?.[1] ?? '';
    const gzipped = gzipSync(readFileSync(join(import.meta.dirname, '../../web/dist', script)), { level: 9 }).length;
    lines.push(
      `  open the release page until the summary shows: median ${ms(median(figures.open!))} of ${RUNS}`,
      `  Rows 100 → 500 until row 500 renders: median ${ms(median(figures.rows500!))}`,
      `  Next page (500 rows): median ${ms(median(figures.nextPage!))}`,
      `  sort by CVSS (server sort, back to page 1, 500 rows): median ${ms(median(figures.sortCvss!))}`,
      `  select the 500 rows of a page (client only): median ${ms(median(figures.selectPage!))}`,
      `  main-thread long tasks over the ${RUNS} runs: ${longTasks.length}, longest ${ms(Math.max(0, ...longTasks))}, total ${ms(longTasks.reduce((sum, value) => sum + value, 0))}`,
      `  first-load JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzipped (budget 200 KB)`,
    );
    return lines.join('\n');
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchConsole());
}
