/** Request schemas and stored file names take hostile strings within the bound (test/support/hostile-input.ts). */
import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { contentDisposition } from '../../shared/service/sboms/sboms';
import * as auditSchemas from '../../shared/service/schemas/audit';
import * as commonSchemas from '../../shared/service/schemas/common';
import * as complianceSchemas from '../../shared/service/schemas/compliance';
import * as disclosureSchemas from '../../shared/service/schemas/disclosures';
import * as dispositionSchemas from '../../shared/service/schemas/dispositions';
import * as productSchemas from '../../shared/service/schemas/products';
import * as releaseSchemas from '../../shared/service/schemas/releases';
import * as sbomSchemas from '../../shared/service/schemas/sboms';
import * as vexSchemas from '../../shared/service/schemas/vex';
import { adversarial, expectAllWithinBound, hostile } from '../support/hostile-input';

const SCHEMA_MODULES = {
  auditSchemas,
  commonSchemas,
  complianceSchemas,
  disclosureSchemas,
  dispositionSchemas,
  productSchemas,
  releaseSchemas,
  sbomSchemas,
  vexSchemas,
};

/** Every exported zod schema; objects get the hostile string in each field (query strings, path parameters and bodies alike). */
function schemaTargets(): { name: string; parse: (input: string) => unknown }[] {
  const out: { name: string; parse: (input: string) => unknown }[] = [];
  for (const [moduleName, module] of Object.entries(SCHEMA_MODULES)) {
    for (const [exportName, value] of Object.entries(module)) {
      if (!(value instanceof z.ZodType)) continue;
      const shape = value instanceof z.ZodObject ? Object.keys(value.shape) : [];
      out.push({
        name: `${moduleName}.${exportName}`,
        parse: (input) => [
          value.safeParse(input),
          value.safeParse(Object.fromEntries(shape.map((key) => [key, input]))),
        ],
      });
    }
  }
  return out;
}

describe('request schemas (bodies, query strings, path parameters) validate hostile strings within the bound', () => {
  const targets = schemaTargets();
  const tokens = ['a', '1', '-', '_', '.', ':', '/', '+', 'T', 'Z', '@', ' ', 'pkg:a/'];

  it('covers the schema modules', () => {
    expect(targets.length).toBeGreaterThan(40);
  });

  it.each(targets.map((t) => [t.name, t] as const))('%s', (_name, { name, parse }) => {
    expectAllWithinBound(name, parse, adversarial(tokens, ['', 'pkg:npm/', '2024-01-01T']));
  });
});

describe('Content-Disposition for stored file names', () => {
  it('builds the header for hostile names within the bound', () => {
    expectAllWithinBound(
      'contentDisposition',
      (name) => contentDisposition(name, 'sbom.json'),
      hostile(['a', '"', '%', ';', '\\', '/', '\uD800', '\uDC00', '😀', 'é', ' '], [''], 6000),
    );
  });

  it('answers a name with a lone surrogate (valid JSON) instead of throwing URIError', () => {
    expect(contentDisposition('bom\uD800.json', 'sbom.json')).toBe(
      `attachment; filename="bom_.json"; filename*=UTF-8''bom%EF%BF%BD.json`,
    );
  });
});
