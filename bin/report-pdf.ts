/**
 * `npm run report:pdf -- RELEASE_ID OUT.pdf [--key vxd_…] [--base-url URL] [--chromium PATH]`
 *
 * Prints a release's compliance report to PDF with headless Chromium. The report comes
 * from a running API (`npm start`), exactly as a client would fetch it:
 * - base URL: `--base-url`, else `http://127.0.0.1:${PORT:-3000}`;
 * - API key: `--key`, else the demo key in `$DATA_DIR/bootstrap.json` (default `.data/`).
 * Chromium: `--chromium`, else `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`
 * (`apt-get install -y chromium`), driven by playwright-core.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const USAGE =
  'usage: npm run report:pdf -- RELEASE_ID OUT.pdf [--key vxd_…] [--base-url http://127.0.0.1:3000] [--chromium /usr/bin/chromium]';

/** No GPU, sandbox or background services in a container; nothing but the page is needed. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Rendering 10,000 inventory rows into pages takes a while; a report never takes minutes. */
const PRINT_TIMEOUT_MS = 180_000;

class UsageError extends Error {}

interface Options {
  releaseId: string;
  out: string;
  baseUrl: string;
  key: string;
  chromiumPath: string;
}

async function demoKey(): Promise<string> {
  const file = join(resolve(process.env.DATA_DIR ?? '.data'), 'bootstrap.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new UsageError(
      `no --key given and ${file} is missing or unreadable (it is written by the first \`npm start\`)`,
    );
  }
  const apiKey = (parsed as { apiKey?: unknown }).apiKey;
  if (typeof apiKey !== 'string') throw new UsageError(`${file} holds no apiKey`);
  return apiKey;
}

async function parseOptions(argv: string[]): Promise<Options> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { key: { type: 'string' }, 'base-url': { type: 'string' }, chromium: { type: 'string' } },
  });
  const [releaseId, out, ...rest] = positionals;
  if (!releaseId || !out || rest.length > 0) throw new UsageError(USAGE);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(releaseId))
    throw new UsageError(`not a release id: ${releaseId}`);
  return {
    releaseId,
    out: resolve(out),
    baseUrl: (values['base-url'] ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}`).replace(/\/+$/, ''),
    key: values.key ?? (await demoKey()),
    chromiumPath: values.chromium ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  };
}

async function fetchReport(options: Options): Promise<{ html: string; sha256: string | null }> {
  const url = `${options.baseUrl}/api/compliance/${options.releaseId}/report`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${options.key}` } });
  } catch (error) {
    throw new UsageError(
      `cannot reach ${options.baseUrl} (${(error as Error).message}); is the server running? Start it with \`npm start\` or pass --base-url`,
    );
  }
  const body = await response.text();
  if (response.status !== 200) throw new UsageError(`GET ${url} answered ${response.status}: ${body.slice(0, 500)}`);
  return { html: body, sha256: response.headers.get('x-report-sha256') };
}

/** Page objects in the PDF Chromium writes (it does not compress the object table into streams). */
function countPages(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g)?.length ?? 0;
}

async function printPdf(html: string, options: Options): Promise<Buffer> {
  try {
    await stat(options.chromiumPath);
  } catch {
    throw new UsageError(
      `Chromium not found at ${options.chromiumPath}: install it (apt-get install -y chromium) or pass --chromium`,
    );
  }
  const browser = await chromium.launch({
    executablePath: options.chromiumPath,
    headless: true,
    args: CHROMIUM_FLAGS,
    timeout: 60_000,
  });
  try {
    // The report needs no scripts and no network; keep both off while printing it.
    const context = await browser.newContext({ javaScriptEnabled: false, offline: true });
    const page = await context.newPage();
    page.setDefaultTimeout(PRINT_TIMEOUT_MS);
    await page.setContent(html, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    // preferCSSPageSize: the report's @page rule (A4, margins, margin boxes) decides the layout.
    return await page.pdf({ printBackground: true, preferCSSPageSize: true, format: 'A4' });
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const options = await parseOptions(process.argv.slice(2));
  const { html, sha256 } = await fetchReport(options);
  const started = performance.now();
  const pdf = await printPdf(html, options);
  await writeFile(options.out, pdf);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `${options.out}: ${countPages(pdf)} pages, ${(pdf.length / 1024).toFixed(0)} KiB, printed in ${seconds} s; report SHA-256 ${sha256 ?? 'unknown'}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `report:pdf: ${error instanceof UsageError ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exitCode = 1;
});
