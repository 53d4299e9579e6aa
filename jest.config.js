// ESM mode (middy >= 5 ships ES modules only); @swc/jest keeps transforms fast.
const swc = ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  testEnvironment: '<rootDir>/test/support/node-environment.ts',
};
export default {
  // Per-project testTimeout is ignored by jest; integration tests talk to a real server.
  // package.json runs every project but e2e with --maxWorkers=100%: jest's default (cores - 1) is one
  // worker on a 2-core machine. Integration and security start one local server per worker
  // (test/support/global-setup.ts), so the server's work, most of a run's, uses every core.
  testTimeout: 60000,
  // Files that scan the whole shared test table run first, while it is small (test/support/test-sequencer.ts).
  testSequencer: '<rootDir>/test/support/test-sequencer.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      // Each file has its own module registry; the compiled schemas are shared through a cache instead
      // (every project that validates documents in the test process uses it).
      setupFiles: ['<rootDir>/test/support/ajv-compile-cache.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/integration-env.ts', '<rootDir>/test/support/ajv-compile-cache.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-after-env.ts'],
    },
    {
      // Security controls (docs/security.md; authorization rules in docs/security-authorization.md), through HTTP against real local servers like integration.
      ...common,
      displayName: 'security',
      testMatch: ['<rootDir>/test/security/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/integration-env.ts', '<rootDir>/test/support/ajv-compile-cache.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-after-env.ts'],
    },
    {
      // The web console in a real browser (playwright-core + Debian's chromium) against one real server.
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/integration-env.ts', '<rootDir>/test/support/ajv-compile-cache.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-after-env.ts'],
    },
    {
      ...common,
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      // A directory for the run's cloud assemblies, removed at the end (test/infra/support/global-setup.ts).
      globalSetup: '<rootDir>/test/infra/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/infra/support/global-teardown.ts',
    },
  ],
};
