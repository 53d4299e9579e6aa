/**
 * The unit project's ajv compile cache (test/support/ajv-compile-cache.ts) must not change what a
 * schema check says: validators loaded from the cache report exactly the errors of ajv's own
 * compile, for valid and broken documents, formats (functions and regular expressions), $refs
 * between schemas, uniqueItems (whose deep equality the cache first tries on fingerprints) and the
 * JTD meta-schema check.
 */
import { describe, expect, it } from '@jest/globals';
import AjvJtd from 'ajv/dist/jtd';
import { generateCsaf, generateCycloneDxVex, generateOpenVex } from '../../shared/service/vex/formats';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { compileCacheStats, withoutCompileCache } from '../support/ajv-compile-cache';
import { createVexSchemaValidator, type VexSchemaFormat } from '../support/schema-validation';

type Json = Record<string, unknown>;

const input = baseVexInput({
  components: [{ ref: 'c1', name: 'minimist', version: '1.2.5', purl: 'pkg:npm/minimist@1.2.5', cpes: [] }],
  findings: [
    vexFinding({
      id: 'aaaaaaaa-0000-4000-8000-000000000001',
      componentRef: 'c1',
      cveId: 'CVE-2021-44906',
      cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8, severity: 'CRITICAL' },
      disposition: vexDisposition({ status: 'not_affected', justification: 'vulnerable_code_not_present' }),
    }),
  ],
});

/** A copy made in this file's realm (structuredClone's objects have another Object, so never deep-equal). */
const copyOf = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A valid document and broken copies, each breaking a different kind of keyword. */
function variants(doc: Json, breakages: Array<(d: Json) => void>): Json[] {
  return [
    doc,
    ...breakages.map((breakIt) => {
      const copy = copyOf(doc);
      breakIt(copy);
      return copy;
    }),
  ];
}
const at = (doc: Json, ...path: Array<string | number>): Json =>
  path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, doc);

const DOCUMENTS: Record<VexSchemaFormat, Json[]> = {
  cyclonedx_vex: variants(generateCycloneDxVex(input) as unknown as Json, [
    (d) => delete d.bomFormat, // required
    (d) => (d.version = 'one'), // type
    (d) => (at(d, 'metadata').timestamp = 'yesterday'), // date-time, a function format
    (d) => (d.vulnerabilities = [at(d, 'vulnerabilities', 0), at(d, 'vulnerabilities', 0)]), // uniqueItems
    (d) => {
      // uniqueItems with the same item, its keys in another order (deep-equal for ajv all the same)
      const first = at(d, 'vulnerabilities', 0);
      d.vulnerabilities = [first, Object.fromEntries(Object.entries(copyOf(first)).reverse())];
    },
    (d) => (at(d, 'vulnerabilities', 0).analysis = { state: 'maybe' }), // enum
    (d) => (d.extra = true), // additionalProperties
  ]),
  openvex: variants(generateOpenVex(input) as unknown as Json, [
    (d) => (d['@id'] = 'not an iri'), // iri, a regular-expression format added by the test support
    (d) => (at(d, 'statements', 0).status = 'unknown'),
    (d) => delete d.statements,
  ]),
  csaf: variants(generateCsaf(input) as unknown as Json, [
    (d) => (at(d, 'vulnerabilities', 0, 'scores', 0, 'cvss_v3').vectorString = 'CVSS:3.1/AV:X'), // $ref to FIRST's schema
    (d) => (at(d, 'document', 'tracking').current_release_date = '2024-13-45'),
    (d) => (at(d, 'document').category = ''),
    (d) => delete at(d, 'document').publisher,
  ]),
};

describe('ajv compile cache', () => {
  it.each(Object.keys(DOCUMENTS) as VexSchemaFormat[])(
    '%s: validators loaded from the cache report what a fresh compile reports',
    (format) => {
      const docs = DOCUMENTS[format];
      const reference = withoutCompileCache(() => {
        const validator = createVexSchemaValidator();
        return docs.map((doc) => validator.validate(format, doc));
      });
      // The first validator fills the cache if this is the first run; the second one is sure to load from it.
      docs.map((doc) => createVexSchemaValidator().validate(format, doc));
      const before = compileCacheStats();
      const cached = docs.map((doc) => createVexSchemaValidator().validate(format, doc));
      expect(compileCacheStats().loaded).toBeGreaterThan(before.loaded);
      expect(compileCacheStats().compiled).toBe(before.compiled);

      expect(cached).toEqual(reference);
      expect(reference[0]).toEqual({ valid: true, errors: [] });
      for (const broken of reference.slice(1)) expect(broken.errors).not.toEqual([]);
    },
  );

  it('JTD schemas and their meta-schema check (as csaf-validator-lib compiles them) behave the same', () => {
    const schema = {
      properties: { id: { type: 'string' }, at: { type: 'timestamp' } },
      optionalProperties: { tags: { elements: { type: 'string' } } },
    } as const;
    const data = [{ id: 'a', at: '2024-01-01T00:00:00Z' }, { id: 1, at: 'never', tags: [2] }, {}];
    const run = () => {
      const validate = new AjvJtd({ allErrors: true }).compile(schema);
      const results = data.map((d) => [validate(d), validate.errors ?? null]);
      let invalidSchema: unknown;
      try {
        new AjvJtd().compile({ properties: { id: { type: 'text' } } });
      } catch (error) {
        invalidSchema = (error as Error).message;
      }
      return { results, invalidSchema };
    };
    const reference = withoutCompileCache(run);
    run();
    const before = compileCacheStats().loaded;
    expect(run()).toEqual(reference);
    expect(compileCacheStats().loaded).toBeGreaterThan(before);
    expect(reference.invalidSchema).toMatch(/schema is invalid/);
    expect(reference.results.map(([valid]) => valid)).toEqual([true, false, false]);
  });
});
