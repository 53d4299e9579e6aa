import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexpPlugin from 'eslint-plugin-regexp';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// The layers of the tree (shared/README.md), by path from the repository root. bin/ also holds project tooling
// (build-web, openapi, report-pdf, repair-lockfile) that belongs to no layer.
const DEPLOYED = ['functions', 'shared/service']; // what the Lambda bundles are built from
const DEV_RUNTIME = ['shared/local', 'bin/start.ts', 'bin/admin.ts']; // `npm start` and the admin CLI
const CLIENT = ['shared/client', 'bin/vexdesk.ts']; // the vexdesk CLI and the GitHub Action
const CONSOLE = ['web/src']; // the web console, built by Vite
const CDK = ['lib', 'bin/app.ts']; // the stack

// The service modules that the console and the client may import, relative to shared/service: the request and
// response schemas, and plain values and functions that touch no table, bucket, AWS SDK or HTTP code. The rest of
// the service they reach only through the HTTP API. The schemas import no more than this list either, so what the
// console and the client pull in through a schema stays plain too. Add a module here only if it is that plain.
const PLAIN_SERVICE_MODULES = [
  'schemas',
  'text.ts',
  'identity/scopes.ts',
  'identity/permission-names.ts',
  'identity/session-timeout-rules.ts',
  'identity/return-path.ts',
  'sboms/sbom-limits.ts',
  'sbom/model.ts',
  'dispositions/carry-over-setting.ts',
  'dispositions/decision-identity.ts',
  'dispositions/vocabulary.ts',
  'vex/statements.ts',
  'disclosures/openpgp-verify.ts',
  'cra/member-states.ts',
  'cra/rules.ts',
  'matching/ecosystems.ts',
];

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
      // oxlint lints the test files with the same rules (.oxlintrc.json): parsing them was most of ESLint's cost.
      'test/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  // The rules that need type information run in oxlint's type-aware mode (.oxlintrc.json) on TypeScript 7's checker,
  // the compiler of `npm run typecheck`: ESLint builds no TypeScript program (test/unit/type-aware-lint.test.ts).
  tseslint.configs.disableTypeChecked,
  {
    rules: {
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
    // Boundaries between the layers. Each zone: the files it applies to (target), what they may not import (from)
    // and its exceptions. The rule resolves every import to a file, so a relative path cannot slip past it.
    files: ['{functions,shared,lib,bin}/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.d.ts', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              // A Lambda bundle holds all that its entry point imports: nothing else of the tree may ship to AWS.
              target: DEPLOYED,
              from: [...DEV_RUNTIME, ...CLIENT, ...CONSOLE, ...CDK, 'bin', 'test', 'web'],
              message: 'Deployed code (functions/, shared/service/) imports only deployed code.',
            },
            {
              // Domain modules know nothing of requests and responses: http/ calls them, never the other way round.
              target: ['shared/service/*.ts', 'shared/service/!(http)/**'],
              from: 'shared/service/http',
              message:
                'Only shared/service/http/ and functions/ import HTTP code: move what a domain module needs into a plain module that http/ imports.',
            },
            {
              // The console and the client reach the service through its HTTP API and share only its plain modules.
              target: [...CONSOLE, ...CLIENT],
              from: 'shared/service',
              except: PLAIN_SERVICE_MODULES,
              message: 'The console and the client import only the plain service modules listed in eslint.config.js.',
            },
            {
              // What the console and the client import through a schema must be as plain as the schema.
              target: 'shared/service/schemas',
              from: 'shared/service',
              except: PLAIN_SERVICE_MODULES,
              message: 'Schemas import only the plain service modules listed in eslint.config.js.',
            },
            {
              // The console and the client run on users' machines: no handler, emulator, stack or test code.
              target: [...CONSOLE, ...CLIENT],
              from: ['functions', ...DEV_RUNTIME, ...CDK, 'test'],
              message: 'The console and the client reach the service only through its HTTP API.',
            },
            {
              // The stack deploys the service; the development runtime, the client and the console are not part of it.
              target: CDK,
              from: [...DEV_RUNTIME, ...CLIENT, ...CONSOLE, 'test'],
              message: 'The CDK app imports only deployed code and its own modules.',
            },
          ],
        },
      ],
    },
  },
  {
    // Lambda event types belong to the HTTP layer and the functions' entry points (and the local emulator, which builds
    // those events): a domain module that took an event could not be called from anywhere else.
    files: ['shared/service/**/*.ts', 'shared/client/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    ignores: ['shared/service/http/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'aws-lambda', message: 'Only shared/service/http/ and functions/ handle Lambda events.' }] },
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
    languageOptions: { sourceType: 'script' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^handler$' }],
    },
  },
);
