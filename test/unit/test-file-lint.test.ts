/**
 * ESLint does not lint test/ (eslint.config.js): parsing with typescript-eslint's parser is most of its cost, and
 * the test files need only generic rules, which oxlint implements natively. `.oxlintrc.json`'s override for the
 * test files runs them instead. These tests fail if that override and the rules ESLint would apply to a test file
 * drift apart (a rule, its level or its options), if oxlint gains a rule or an option this file lists as missing,
 * or if oxlint stops reporting a violation of them in a test file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = resolve(import.meta.dirname, '../..');
const oxlint = join(root, 'node_modules/.bin/oxlint');
const oxlintConfig = join(root, '.oxlintrc.json');
const TEST_FILES = 'test/**/*.ts';
const TEST_FILE = 'test/unit/openapi.test.ts';

type RuleEntry = string | [string, unknown];
interface OxlintConfig {
  overrides: { files: string[]; plugins?: string[]; rules: Record<string, RuleEntry> }[];
}

/** The jest rules test files had in ESLint, which now exist only in oxlint's override. */
const JEST_RULES: Record<string, RuleEntry> = {
  'jest/no-focused-tests': 'error',
  'jest/no-disabled-tests': 'error',
  'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*', 'assert*'] }],
};

/** The rules ESLint would apply to a test file that oxlint does not implement, and why none is lost. */
const NOT_IN_OXLINT: Record<string, string> = {
  'no-octal':
    'a legacy octal literal is a syntax error in strict-mode code, and every test file is an ES module: ' +
    "oxlint's parser rejects it (as typescript-eslint's and tsc do)",
  'no-restricted-syntax':
    "its one selector forbids `import { z } from 'zod'` for Lambda bundle size; test files are never bundled",
};

/** Options ESLint passes that oxlint's rule has no setting for, with the value ESLint passes and why it is the same. */
const OPTIONS_NOT_IN_OXLINT: Record<string, { value: Record<string, unknown>; why: string }> = {
  'preserve-caught-error': {
    value: { errorClassNames: [] },
    why: 'extra error classes to check; none are listed, and oxlint checks the built-in ones as ESLint does',
  },
};

/**
 * Defaults typescript-eslint's rules apply in their code, not in their `defaultOptions`, written as oxlint's
 * options. no-unused-vars always reports a value that is only used as a type ("only used as a type"); oxlint's rule
 * does so only with `reportVarsOnlyUsedAsTypes`.
 */
const IMPLICIT_DEFAULTS: Record<string, Record<string, unknown>> = {
  '@typescript-eslint/no-unused-vars': {
    args: 'after-used',
    caughtErrors: 'all',
    ignoreClassWithStaticInitBlock: false,
    ignoreRestSiblings: false,
    ignoreUsingDeclarations: false,
    reportUsedIgnorePattern: false,
    vars: 'all',
    reportVarsOnlyUsedAsTypes: true,
  },
};

const config = JSON.parse(readFileSync(oxlintConfig, 'utf8')) as OxlintConfig;
const testOverride = config.overrides.find((override) => override.files.join() === TEST_FILES);

interface OxlintRule {
  scope: string;
  value: string;
}

/** oxlint's rules, as `scope/name` (`eslint/no-var`, `typescript/no-explicit-any`, `jest/expect-expect`). */
const oxlintRules = new Set(
  (JSON.parse(execFileSync(oxlint, ['--rules', '--format', 'json'], { encoding: 'utf8' })) as OxlintRule[]).map(
    (rule) => `${rule.scope}/${rule.value}`,
  ),
);

/** A JSON schema, loosely: oxlint's configuration schema describes each rule's options. */
interface Schema {
  [key: string]: unknown;
  $ref?: string;
  anyOf?: Schema[];
  items?: Schema[];
  properties?: Record<string, Schema>;
  default?: unknown;
}
const schema = JSON.parse(readFileSync(join(root, 'node_modules/oxlint/configuration_schema.json'), 'utf8')) as {
  definitions: Record<string, Schema> & { DummyRuleMap: { properties: Record<string, Schema> } };
};
const deref = (node: Schema): Schema => (node.$ref ? deref(schema.definitions[node.$ref.split('/').pop()!]!) : node);

/** The settings oxlint's rule takes in its options object, each with its default (undefined if it has none). */
function oxlintOptions(rule: string): Record<string, unknown> {
  const entry = schema.definitions.DummyRuleMap.properties[rule.replace(/^eslint\//, '')];
  const options = entry?.anyOf?.find((branch) => branch.type === 'array')?.items?.[1];
  if (!options) return {};
  const object = [deref(options), ...(deref(options).anyOf ?? []).map(deref)].find((branch) => branch.properties);
  return Object.fromEntries(Object.entries(object?.properties ?? {}).map(([name, prop]) => [name, prop.default]));
}

const tsRules = (tseslint.plugin as unknown as { rules: Record<string, TsRule> }).rules;
interface TsRule {
  defaultOptions?: unknown[];
  meta: { docs?: { extendsBaseRule?: boolean | string } };
}

/** oxlint's name for an ESLint rule, or undefined if oxlint has none. */
function oxlintName(rule: string): string | undefined {
  if (rule.startsWith('@typescript-eslint/')) {
    const name = rule.slice('@typescript-eslint/'.length);
    if (oxlintRules.has(`typescript/${name}`)) return `typescript/${name}`;
    // An extension of a core rule (no-unused-vars, …): oxlint's core rule understands TypeScript itself.
    return tsRules[name]?.meta.docs?.extendsBaseRule && oxlintRules.has(`eslint/${name}`) ? name : undefined;
  }
  if (rule.includes('/')) return oxlintRules.has(rule) ? rule : undefined; // a plugin's: jest/…
  return oxlintRules.has(`eslint/${rule}`) ? rule : undefined;
}

/** Whether ESLint ignores a test file, and the rules it would apply to it if not (with core rules' default options). */
const eslintView = {
  ignored: await new ESLint({ cwd: root }).isPathIgnored(join(root, TEST_FILE)),
  rules: (
    (await new ESLint({ cwd: root, ignore: false }).calculateConfigForFile(join(root, TEST_FILE))) as {
      rules: Record<string, [number | string, ...unknown[]]>;
    }
  ).rules,
};

/**
 * The rules ESLint would apply to a test file were test/ not ignored: every rule not scoped to a path (no `files:`
 * block matches test/). Its options are complete: ESLint fills in core rules' defaults, and typescript-eslint's
 * are merged here.
 */
function eslintTestFileRules(): Record<string, unknown[]> {
  const on: Record<string, unknown[]> = {};
  for (const [rule, [level, ...options]] of Object.entries(eslintView.rules)) {
    if (level === 0 || level === 'off') continue;
    expect({ rule, level }).toEqual({ rule, level: 2 });
    const defaults = tsRules[rule.replace('@typescript-eslint/', '')]?.defaultOptions;
    on[rule] =
      rule.startsWith('@typescript-eslint/') && isObject(defaults?.[0])
        ? [{ ...defaults[0], ...IMPLICIT_DEFAULTS[rule], ...(options[0] as object) }]
        : options;
  }
  return on;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * oxlint's entry for an ESLint rule with these options: "error", with the options whose value differs from
 * oxlint's default, or that have no default there; and the options oxlint's rule does not take, if any.
 */
function expectedEntry(name: string, options: unknown[]): { entry: RuleEntry; notInOxlint?: Record<string, unknown> } {
  const [first] = options;
  if (first === undefined) return { entry: 'error' };
  if (!isObject(first)) return { entry: ['error', first] }; // no-cond-assign's "except-parens": say it
  const settings = oxlintOptions(name);
  const differing = Object.entries(first).filter(
    ([key, value]) => key in settings && JSON.stringify(value) !== JSON.stringify(settings[key]),
  );
  const unknown = Object.entries(first).filter(([key]) => !(key in settings));
  return {
    entry: differing.length === 0 ? 'error' : ['error', Object.fromEntries(differing)],
    ...(unknown.length > 0 && { notInOxlint: Object.fromEntries(unknown) }),
  };
}

interface Diagnostic {
  code: string;
  labels: { label: string }[];
}

describe('test files in oxlint', () => {
  it('are ignored by ESLint', () => {
    expect(eslintView.ignored).toBe(true);
  });

  it('get every rule ESLint would apply to them, as errors with the same options, and the jest rules', () => {
    const expected: Record<string, RuleEntry> = { ...JEST_RULES };
    const missing: string[] = [];
    const optionsMissing: Record<string, Record<string, unknown>> = {};
    for (const [rule, options] of Object.entries(eslintTestFileRules())) {
      const name = oxlintName(rule);
      if (name === undefined) {
        missing.push(rule);
        continue;
      }
      const { entry, notInOxlint } = expectedEntry(name, options);
      expected[name] = entry;
      if (notInOxlint) optionsMissing[rule] = notInOxlint;
    }
    // Missing from oxlint: exactly the documented ones. An oxlint upgrade that adds one fails here: turn it on.
    expect(missing.sort()).toEqual(Object.keys(NOT_IN_OXLINT).sort());
    expect(optionsMissing).toEqual(
      Object.fromEntries(Object.entries(OPTIONS_NOT_IN_OXLINT).map(([rule, { value }]) => [rule, value])),
    );
    const on = Object.fromEntries(Object.entries(testOverride?.rules ?? {}).filter(([, entry]) => entry !== 'off'));
    expect(on).toEqual(expected);
    expect(testOverride?.plugins).toEqual(['jest']); // without it oxlint skips the jest rules without a word
  });

  describe('on a test file with violations', () => {
    // Under test/ so that the override applies; not *.test.ts, so no jest project runs it.
    const dir = mkdtempSync(join(root, 'test', '.lint-fixture-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports each of them', () => {
      const file = join(dir, 'violations.ts');
      // The file's text is a fixture, not TypeScript: no test runner or linter of this project reads it where it is.
      // It names the focused and the disabled test by placeholders, so that no file of the project holds either.
      const fixture = readFileSync(join(root, 'test/fixtures/lint/test-file-violations.ts.txt'), 'utf8');
      writeFileSync(file, fixture.replace('it.FOCUSED(', `it.${'only'}(`).replace('it.DISABLED(', `it.${'skip'}(`));
      let output: string;
      try {
        output = execFileSync(oxlint, ['-c', oxlintConfig, '--format', 'json', file], { cwd: root, encoding: 'utf8' });
      } catch (error) {
        // Exit code 1: violations found, the report is on standard output as usual.
        output = (error as { stdout: string }).stdout;
      }
      const reported = (JSON.parse(output) as { diagnostics: Diagnostic[] }).diagnostics;
      expect([...new Set(reported.map((diagnostic) => diagnostic.code))].sort()).toEqual(
        [
          'eslint(no-unused-vars)',
          'eslint(no-var)',
          'jest(expect-expect)',
          'jest(no-disabled-tests)',
          'jest(no-focused-tests)',
          'typescript(consistent-type-imports)',
          'typescript(no-explicit-any)',
        ].sort(),
      );
      // Both unused values: `unused`, and `limit`, which is only used as a type.
      const unused = reported.filter((diagnostic) => diagnostic.code === 'eslint(no-unused-vars)');
      expect(unused.map((diagnostic) => diagnostic.labels[0]?.label).sort()).toEqual([
        "'limit' is declared here",
        "'unused' is declared here",
      ]);
    });
  });
});
