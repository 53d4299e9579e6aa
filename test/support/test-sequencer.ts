/**
 * Jest's own order (files that failed last first, then the slowest, or the largest on a first run), except that files
 * whose leading comment carries `@whole-table-scan` go first.
 *
 * Such a file runs a table migration, which scans the whole table of the test server it shares with every other file
 * of its jest run. That table grows through the run: late in it, the migrations of the few files that run them paged
 * through everything the other files wrote (about 240 one-megabyte `Scan` pages, 15 server CPU-s, in the integration
 * run). Run first, they page through little. The tag sits with the reason in the test file, and
 * test/unit/test-sequencer.test.ts checks that every file running a migration carries it.
 */
import { readFileSync } from 'node:fs';
import TestSequencer from '@jest/test-sequencer';

/** A test file as jest hands it to a sequencer. */
type Test = Parameters<TestSequencer['sort']>[0][number];

export const WHOLE_TABLE_SCAN_TAG = '@whole-table-scan';

/** The tag as a line of a block comment starts it (` * @whole-table-scan: why`), not a mention of it in prose. */
const TAG_LINE = new RegExp(`^\\s*\\*\\s*${WHOLE_TABLE_SCAN_TAG}\\b`, 'm');

/** Whether the file's leading block comment carries the tag. */
export function scansWholeTable(path: string): boolean {
  const leadingComment = /^\s*\/\*[\s\S]*?\*\//.exec(readFileSync(path, 'utf8'))?.[0] ?? '';
  return TAG_LINE.test(leadingComment);
}

export default class WholeTableScansFirst extends TestSequencer {
  override async sort(tests: Test[]): Promise<Test[]> {
    const sorted = await super.sort(tests);
    const first = sorted.filter((test) => scansWholeTable(test.path));
    return [...first, ...sorted.filter((test) => !first.includes(test))];
  }
}
