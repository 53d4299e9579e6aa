import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jestPlugin from 'eslint-plugin-jest';
import regexpPlugin from 'eslint-plugin-regexp';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.data/',
      'coverage/',
      '.bench/',
      'dist/',
      'web/dist/',
      'test/e2e/screenshots/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // `import { z }` makes esbuild keep all of zod (~100 KB per Lambda bundle); the namespace import lets it drop what is unused.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'][importKind!='type']",
          message: "Use `import * as z from 'zod'` so bundles keep only the zod API they use.",
        },
      ],
    },
  },
  {
    // ReDoS gate (docs/hostile-input.md): every regex literal in the code that sees requests matches in linear time.
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    plugins: { regexp: regexpPlugin },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    // CloudFront Functions are plain scripts run by CloudFront (lib/console-hosting.ts): no type information,
    // and `handler` is their entry point, called by the runtime.
    files: ['lib/cloudfront/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { sourceType: 'script', parserOptions: { projectService: false, project: null } },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^handler$' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    plugins: { jest: jestPlugin },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*', 'assert*'] }],
      '@typescript-eslint/unbound-method': 'off',
      // Tests read JSON response bodies; the assertions on them are the type check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
