/**
 * The console's first load ships at most 200 KB of gzipped JavaScript (issue 12 item 4): every script
 * index.html loads (module scripts and modulepreloads) and every chunk those import statically, each
 * gzipped at level 9 as CloudFront and the local server could serve it. The global setup has just
 * built web/dist.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';

const DIST = join(import.meta.dirname, '../../web/dist');
const BUDGET_BYTES = 200 * 1024;

/** Static imports of an ES module chunk (`import … from "./x.js"`, `import "./x.js"`), not dynamic `import()`. */
function staticImports(source: string): string[] {
  return [...source.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?["']([^"']+\.js)["']/g)].map(
    (match) => match[1]!,
  );
}

function firstLoadScripts(): string[] {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const entries = [
    ...[...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((match) => match[1]!),
    ...[...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((match) => match[1]!),
  ];
  const seen = new Set<string>();
  const queue = entries.map((src) => posix.normalize(src));
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const source = readFileSync(join(DIST, path), 'utf8');
    for (const specifier of staticImports(source)) queue.push(posix.join(posix.dirname(path), specifier));
  }
  return [...seen];
}

describe('the console bundle', () => {
  it('loads at most 200 KB of gzipped JavaScript on first load, and no inline script', () => {
    const scripts = firstLoadScripts();
    expect(scripts.length).toBeGreaterThan(0);
    const sizes = scripts.map((path) => ({
      path,
      gzipped: gzipSync(readFileSync(join(DIST, path)), { level: 9 }).length,
    }));
    const total = sizes.reduce((sum, { gzipped }) => sum + gzipped, 0);
    process.stdout.write(
      `console first load: ${sizes.map(({ path, gzipped }) => `${path} ${(gzipped / 1024).toFixed(1)} KB`).join(', ')}; total ${(total / 1024).toFixed(1)} KB gzipped\n`,
    );
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
    // The CSP is script-src 'self': every script in index.html has a src.
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    expect([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)]).toEqual([]);
    expect(html).not.toMatch(/\sstyle=/);
    expect(dirname(scripts[0]!)).toBe('/assets');
  });
});
