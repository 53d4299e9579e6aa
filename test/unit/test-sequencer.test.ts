/**
 * test/support/test-sequencer.ts: the files that run a table migration against the shared test server carry the
 * `@whole-table-scan` tag, and the sequencer runs them before the rest, in jest's own order otherwise.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import WholeTableScansFirst, { scansWholeTable, WHOLE_TABLE_SCAN_TAG } from '../support/test-sequencer';

const ROOT = resolve(import.meta.dirname, '../..');
/** The projects whose files share one test server (and its table) per jest worker. */
const SHARED_SERVER_DIRS = ['test/integration', 'test/security'];
/** A migration run in the test process (`migrateKeyLayout(`, `ensureSbomIndex(`, the list) or by the admin CLI. */
const RUNS_A_MIGRATION = /\b(?:migrate|ensure)[A-Z][A-Za-z]*\(|\bTABLE_MIGRATIONS\b|'table',\s*'migrate'/;

const sharedServerFiles = SHARED_SERVER_DIRS.flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(ROOT, dir, name)),
);

/** A jest `Test` as the sequencer sees it: no timing cache, so jest orders by file size. */
function testOf(path: string, size: number) {
  return { path, context: { config: { cache: false, id: 'sequencer-test' }, hasteFS: { getSize: () => size } } };
}

describe('whole-table scans first', () => {
  it('tags exactly the shared-server files that run a table migration', () => {
    const running = sharedServerFiles.filter((path) => RUNS_A_MIGRATION.test(readFileSync(path, 'utf8')));
    const tagged = sharedServerFiles.filter((path) => scansWholeTable(path));
    expect(running.length).toBeGreaterThan(0);
    expect(tagged.map((path) => relative(ROOT, path)).sort()).toEqual(
      running.map((path) => relative(ROOT, path)).sort(),
    );
  });

  it('reads the tag only as a line of the leading comment', () => {
    const tagged = sharedServerFiles.find((path) => scansWholeTable(path));
    const untagged = sharedServerFiles.find((path) => !readFileSync(path, 'utf8').includes(WHOLE_TABLE_SCAN_TAG));
    expect(tagged).toBeDefined();
    expect(untagged).toBeDefined();
    // This file's leading comment names the tag in a sentence, not as a line of its own.
    expect(scansWholeTable(import.meta.filename)).toBe(false);
  });

  it('puts the tagged files first and keeps jest order (largest first, without timings) for each part', async () => {
    const tagged = sharedServerFiles.filter((path) => scansWholeTable(path)).slice(0, 2);
    const untagged = sharedServerFiles.filter((path) => !scansWholeTable(path)).slice(0, 3);
    expect(tagged).toHaveLength(2);
    const tests = [
      testOf(untagged[0]!, 500),
      testOf(tagged[0]!, 100),
      testOf(untagged[1]!, 900),
      testOf(tagged[1]!, 300),
      testOf(untagged[2]!, 700),
    ];
    type Options = ConstructorParameters<typeof WholeTableScansFirst>[0];
    const sequencer = new WholeTableScansFirst({ contexts: [], globalConfig: {} as Options['globalConfig'] });
    const sorted = await sequencer.sort(tests as unknown as Parameters<typeof sequencer.sort>[0]);
    expect(sorted.map((test) => test.path)).toEqual([tagged[1], tagged[0], untagged[1], untagged[2], untagged[0]]);
  });
});
