/**
 * The layer rules of eslint.config.js (shared/README.md) fail lint on an import that crosses a boundary. Each case
 * lints one import as if it were written in a real file of the tree, through ESLint's own API and the project's
 * config (which has no rule that needs type information: those run in oxlint).
 */
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

const LAYER_RULES = new Set(['import-x/no-restricted-paths', 'no-restricted-imports']);

/** The layer rules' messages for a file whose whole text is `imports` (and any parse error, so none passes unseen). */
async function layerErrors(filePath: string, imports: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${imports}\nexport {};\n`, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.fatal === true || LAYER_RULES.has(message.ruleId ?? ''))
    .map((message) => message.message);
}

describe('layer boundaries in lint', () => {
  const violations = [
    {
      crossing: 'a domain module imports HTTP code',
      file: 'shared/service/identity/api-keys.ts',
      source: "import { routes } from '../http/routes';",
      error: 'Only shared/service/http/ and functions/ import HTTP code',
    },
    {
      crossing: 'deployed code imports the development runtime',
      file: 'shared/service/sboms/sboms.ts',
      source: "import { startEmbeddedEngines } from '../../local/engines';",
      error: 'Deployed code (functions/, shared/service/) imports only deployed code',
    },
    {
      crossing: 'a function imports the client',
      file: 'functions/sboms/handler.ts',
      source: "import { main } from '../../shared/client/cli';",
      error: 'Deployed code (functions/, shared/service/) imports only deployed code',
    },
    {
      crossing: 'the client imports a data module',
      file: 'shared/client/findings.ts',
      source: "import { keys } from '../service/data/keys';",
      error: 'The console and the client import only the plain service modules',
    },
    {
      crossing: 'the console imports a data module',
      file: 'web/src/main.tsx',
      source: "import { keys } from '../../shared/service/data/keys';",
      error: 'The console and the client import only the plain service modules',
    },
    {
      crossing: 'the client imports the emulator',
      file: 'shared/client/cli.ts',
      source: "import { createLocalApi } from '../local/api-gateway-emulator';",
      error: 'The console and the client reach the service only through its HTTP API',
    },
    {
      crossing: 'a schema imports a store',
      file: 'shared/service/schemas/sboms.ts',
      source: "import { toSbom } from '../sboms/sbom-store';",
      error: 'Schemas import only the plain service modules',
    },
    {
      crossing: 'the CDK app imports the emulator',
      file: 'lib/settings.ts',
      source: "import { createLocalApi } from '../shared/local/api-gateway-emulator';",
      error: 'The CDK app imports only deployed code and its own modules',
    },
    {
      crossing: 'a domain module takes Lambda events',
      file: 'shared/service/sboms/sboms.ts',
      source: "import type { APIGatewayProxyEvent } from 'aws-lambda';",
      error: 'Only shared/service/http/ and functions/ handle Lambda events',
    },
  ];

  it.each(violations)('$crossing: lint fails', async ({ file, source, error }) => {
    const errors = await layerErrors(file, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(error);
  });

  const allowed = [
    {
      crossing: 'http/ imports a domain module',
      file: 'shared/service/http/scopes.ts',
      source: "import { SCOPES } from '../identity/scopes';",
    },
    {
      crossing: 'the client imports a schema',
      file: 'shared/client/findings.ts',
      source: "import { uploadSbomBody } from '../service/schemas/sboms';",
    },
    {
      crossing: 'the console imports a plain module',
      file: 'web/src/main.tsx',
      source: "import { MAX_SBOM_BYTES } from '../../shared/service/sboms/sbom-limits';",
    },
    {
      crossing: 'a function imports Lambda types and a domain module',
      file: 'functions/sboms/handler.ts',
      source: "import type { Context } from 'aws-lambda';\nimport { Sboms } from '../../shared/service/sboms/sboms';",
    },
    {
      crossing: 'the development runtime imports the service',
      file: 'shared/local/engines.ts',
      source: "import { keys } from '../service/data/keys';",
    },
  ];

  it.each(allowed)('$crossing: lint passes', async ({ file, source }) => {
    expect(await layerErrors(file, source)).toEqual([]);
  });
});
