/**
 * The e2e tests' browser: Debian's chromium (`apt-get install -y chromium`, or CHROMIUM_PATH) driven by
 * playwright-core, with axe-core for accessibility, screenshots into test/e2e/screenshots/ (gitignored) when
 * VEXDESK_E2E_SCREENSHOTS=1, and a record of Content-Security-Policy violations (the console must run under
 * `script-src 'self'`).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];
export const SCREENSHOT_DIR = join(import.meta.dirname, 'screenshots');

export function chromiumPath(): string {
  const found = CANDIDATES.find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)));
  if (!found) throw new Error('No chromium found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * axe-core's serious and critical violations on the page as it is now. The source goes in through
 * the DevTools protocol (page.evaluate), which the page's CSP does not govern; a <script> tag would
 * (rightly) be refused.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Once per document: a check after a re-render finds it still there.
  if (await page.evaluate("typeof axe === 'undefined'")) await page.evaluate(`${axeSource}\n;0`);
  // Page-side code as text: the test project compiles without the DOM library.
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)",
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      ...violation,
      nodes: violation.nodes.slice(0, 3).map(({ target, failureSummary }) => ({ target, failureSummary })),
    }));
}

/**
 * Photographs the page for a person to look at, when asked (VEXDESK_E2E_SCREENSHOTS=1): a full-page screenshot
 * checks nothing, and the 35 of a run were a sixth of the browser's CPU.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.VEXDESK_E2E_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Presses Tab until `target` has the focus (it is reachable from the keyboard), then `key`. */
export async function tabTo(page: Page, target: Locator, key = 'Enter', maxPresses = 250): Promise<number> {
  const handle = await target.elementHandle();
  if (!handle) throw new Error('tabTo: no such element');
  for (let presses = 1; presses <= maxPresses; presses++) {
    await page.keyboard.press('Tab');
    // globalThis.document: the test project compiles without the DOM library; this runs in the page.
    if (
      await handle.evaluate(
        (element) =>
          element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      )
    ) {
      if (key) await page.keyboard.press(key);
      return presses;
    }
  }
  throw new Error(`tabTo: not reached with ${maxPresses} Tab presses`);
}

/** Collects CSP violations the page reports (securitypolicyviolation events and console errors). */
export function recordCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}
