/**
 * Lint's rules that need type information run in oxlint's type-aware mode (.oxlintrc.json, on TypeScript 7's
 * checker, the compiler `npm run typecheck` uses), the rest in ESLint (eslint.config.js) without a TypeScript
 * program. Together they are typescript-eslint's `recommendedTypeChecked`: these tests fail if oxlint's list and
 * typescript-eslint's drift apart, if ESLint runs a rule that needs types, or if oxlint stops reporting a violation.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = resolve(import.meta.dirname, '../..');
const oxlintConfig = join(root, '.oxlintrc.json');

interface OxlintConfig {
  rules: Record<string, string>;
  overrides: { files: string[]; rules: Record<string, unknown> }[];
}

const config = JSON.parse(readFileSync(oxlintConfig, 'utf8')) as OxlintConfig;

/** The plugin's rules (typed loosely by typescript-eslint's entry point, as ESLint's plugin type). */
const pluginRules = (
  tseslint.plugin as unknown as { rules: Record<string, { meta: { docs?: { requiresTypeChecking?: boolean } } }> }
).rules;

/** Whether a typescript-eslint rule, by name without the plugin prefix, needs type information. */
function needsTypes(name: string): boolean {
  return pluginRules[name]?.meta.docs?.requiresTypeChecking === true;
}

/** The rules `recommendedTypeChecked` turns on that need type information. */
function recommendedTypedRules(): string[] {
  const rules: Record<string, unknown> = {};
  for (const entry of tseslint.configs.recommendedTypeChecked) Object.assign(rules, entry.rules ?? {});
  return Object.entries(rules)
    .filter(([rule, level]) => level !== 'off' && level !== 0 && needsTypes(rule.replace('@typescript-eslint/', '')))
    .map(([rule]) => rule.replace('@typescript-eslint/', ''))
    .sort();
}

describe('type-aware lint', () => {
  it("runs every typed rule of typescript-eslint's recommendedTypeChecked in oxlint, as errors", () => {
    const inOxlint = Object.entries(config.rules)
      .filter(([, level]) => level === 'error')
      .map(([rule]) => rule.replace('typescript/', ''))
      .sort();
    expect(inOxlint).toEqual(recommendedTypedRules());
  });

  it('turns off in test files only what eslint.config.js turned off there (JSON bodies are read untyped)', () => {
    // The one override is the test files'; the rules it turns on are test/unit/test-file-lint.test.ts's subject.
    expect(config.overrides.map((override) => override.files)).toEqual([['test/**/*.ts']]);
    const off = Object.entries(config.overrides[0]!.rules).filter(([, level]) => level === 'off');
    expect(Object.fromEntries(off)).toEqual({
      'typescript/unbound-method': 'off',
      'typescript/no-unsafe-member-access': 'off',
      'typescript/no-unsafe-assignment': 'off',
      'typescript/no-unsafe-argument': 'off',
      'typescript/no-unsafe-call': 'off',
    });
  });

  it('leaves ESLint no rule that needs type information, so it builds no TypeScript program', async () => {
    // ignore: false, as ESLint skips test/ (oxlint lints it): the test file's config is what it would apply there.
    const eslint = new ESLint({ cwd: root, ignore: false });
    for (const file of ['shared/service/scans/scans.ts', 'web/src/hooks.ts', 'test/unit/openapi.test.ts']) {
      const { rules = {}, languageOptions } = (await eslint.calculateConfigForFile(join(root, file))) as {
        rules?: Record<string, unknown[]>;
        languageOptions?: { parserOptions?: { projectService?: unknown; project?: unknown } };
      };
      const typedOn = Object.entries(rules)
        .filter(([rule, [level]]) => rule.startsWith('@typescript-eslint/') && level !== 0 && level !== 'off')
        .map(([rule]) => rule.replace('@typescript-eslint/', ''))
        .filter(needsTypes);
      expect({ file, typedOn }).toEqual({ file, typedOn: [] });
      expect(languageOptions?.parserOptions?.projectService ?? false).toBe(false);
    }
  });

  describe('on a file with violations', () => {
    const project = mkdtempSync(join(tmpdir(), 'vexdesk-type-aware-lint-'));
    afterAll(() => rmSync(project, { recursive: true, force: true }));

    it('reports them with the types only a checker knows', () => {
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['*.ts'] }),
      );
      writeFileSync(
        join(project, 'violations.ts'),
        [
          'declare const loose: any;',
          'async function later(): Promise<number> {',
          '  return 1;',
          '}',
          'export function run(): void {',
          '  later();',
          '  const value: number = loose;',
          '  const text = `${{ a: 1 }}`;',
          '  void [text, value];',
          '  [1, 2].forEach(async () => {',
          '    await later();',
          '  });',
          '}',
          'class Counter {',
          '  count = 0;',
          '  increment(): void {',
          '    this.count += 1;',
          '  }',
          '}',
          'export const increment = new Counter().increment;',
          '',
        ].join('\n'),
      );
      let output: string;
      try {
        output = execFileSync(
          join(root, 'node_modules/.bin/oxlint'),
          ['-c', oxlintConfig, '--type-aware', '--format', 'json', join(project, 'violations.ts')],
          { cwd: root, encoding: 'utf8' },
        );
      } catch (error) {
        // Exit code 1: violations found, the report is on standard output as usual.
        output = (error as { stdout: string }).stdout;
      }
      const reported = (JSON.parse(output) as { diagnostics: { code: string }[] }).diagnostics.map(
        (diagnostic) => diagnostic.code,
      );
      expect([...new Set(reported)].sort()).toEqual(
        [
          'typescript(no-base-to-string)',
          'typescript(no-floating-promises)',
          'typescript(no-misused-promises)',
          'typescript(no-unsafe-assignment)',
          'typescript(require-await)',
          'typescript(restrict-template-expressions)',
          'typescript(unbound-method)',
        ].sort(),
      );
    });
  });
});
