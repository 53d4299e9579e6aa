/**
 * Every regex literal in the code that sees requests, timed on inputs built from its own pattern
 * (test/support/hostile-input.ts).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { adversarial, expectAllWithinBound } from '../support/hostile-input';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Regex literals and `new RegExp('literal')` in shared/ and functions/, found by the TypeScript parser, not by a pattern. */
function regexesInSource(): { where: string; regex: RegExp }[] {
  const found: { where: string; regex: RegExp }[] = [];
  for (const file of [...sourceFiles(join(ROOT, 'shared')), ...sourceFiles(join(ROOT, 'functions'))]) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const text = node.text;
        const slash = text.lastIndexOf('/');
        found.push({
          where: where(node),
          regex: new RegExp(text.slice(1, slash), text.slice(slash + 1).replace(/[gy]/g, '')),
        });
      } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
        const [pattern, flags] = node.arguments ?? [];
        if (pattern && ts.isStringLiteralLike(pattern))
          found.push({
            where: where(node),
            regex: new RegExp(
              pattern.text,
              flags && ts.isStringLiteralLike(flags) ? flags.text.replace(/[gy]/g, '') : '',
            ),
          });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** What a pattern's quantifiers accept: its literal characters, its literal words, and a representative of each common class. */
function tokensOf(regex: RegExp): string[] {
  const words = regex.source.match(/[A-Za-z]{2,}/g) ?? [];
  const literals = [...new Set(regex.source.replace(/\\[dDsSwWbB]/g, '').replace(/[\\^$()[\]{}|?*+]/g, ''))];
  return [...new Set(['1', 'a', 'A', ' ', '-', '.', '/', ...words.slice(0, 6), ...literals.slice(0, 24)])];
}

describe('every regex literal in shared/ and functions/ runs within the bound on inputs built from its own pattern', () => {
  const regexes = regexesInSource();

  it('finds the regexes (a parser change must not leave this sweep empty)', () => {
    expect(regexes.length).toBeGreaterThan(100);
  });

  it.each(regexes.map((r) => [r.where, r.regex.source.slice(0, 60), r.regex] as const))(
    '%s %s',
    (where, _source, regex) => {
      const tokens = tokensOf(regex);
      const prefixes = ['', ...(regex.source.match(/[A-Za-z]{2,}[^A-Za-z\\(]?/g) ?? []).slice(0, 2)];
      expectAllWithinBound(where, (input) => regex.exec(input), adversarial(tokens, prefixes));
    },
  );
});
