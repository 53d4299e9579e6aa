/**
 * Offline validators for VEX documents against the official schemas in
 * test/fixtures/schemas (see the README there for sources and licences):
 * CycloneDX 1.4/1.5/1.6 (JSON Schema draft-07), OpenVEX 0.2.0 and CSAF 2.0 (2020-12), SARIF 2.1.0 (draft-04),
 * with every `$ref` resolved locally, plus the CSAF 2.0 mandatory tests of
 * @secvisogram/csaf-validator-lib.
 *
 *   const v = vexSchemaValidator();
 *   expect(v.cyclonedx(doc).errors).toEqual([]);
 *   expect((await runCsafMandatoryTests(doc)).failures).toEqual([]);
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv, { type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';

export type CycloneDxSchemaVersion = '1.4' | '1.5' | '1.6';
export type VexSchemaFormat = 'cyclonedx_vex' | 'openvex' | 'csaf';

export interface SchemaValidationResult {
  valid: boolean;
  /** `<instancePath> <message> <params>` per error; empty when valid. */
  errors: string[];
}

export interface VexSchemaValidator {
  /** Validates against the schema of `version`, default: the document's own `specVersion`. */
  cyclonedx(doc: unknown, version?: CycloneDxSchemaVersion): SchemaValidationResult;
  openvex(doc: unknown): SchemaValidationResult;
  csaf(doc: unknown): SchemaValidationResult;
  validate(format: VexSchemaFormat, doc: unknown): SchemaValidationResult;
}

export const SCHEMA_DIR = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));

function loadSchema(relativePath: string): AnySchemaObject {
  return JSON.parse(readFileSync(`${SCHEMA_DIR}${relativePath}`, 'utf8')) as AnySchemaObject;
}

/**
 * Formats the schemas use that ajv-formats lacks. Deliberately lenient (RFC 3987 IRIs and
 * IDN e-mails in full would need a parser); they reject whitespace and missing schemes.
 */
function addMissingFormats(ajv: Ajv): void {
  ajv.addFormat('iri', /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/u);
  ajv.addFormat('iri-reference', /^[^\s<>"{}|\\^`]*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
}

function result(validate: ValidateFunction, doc: unknown): SchemaValidationResult {
  const valid = validate(doc);
  const errors = (validate.errors ?? []).map(
    (e: ErrorObject) =>
      `${e.instancePath === '' ? '/' : e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
  return { valid, errors: valid ? [] : errors };
}

const CDX_SCHEMAS: Record<CycloneDxSchemaVersion, string> = {
  '1.4': 'cyclonedx/bom-1.4.schema.json',
  '1.5': 'cyclonedx/bom-1.5.schema.json',
  '1.6': 'cyclonedx/bom-1.6.schema.json',
};

/** FIRST CVSS schemas under the `$ref` URLs the CSAF schema uses (draft-04 `id`/`$schema` dropped for Ajv 2020). */
const CSAF_CVSS_REFS: Record<string, string> = {
  'https://www.first.org/cvss/cvss-v2.0.json': 'csaf/cvss-v2.0.json',
  'https://www.first.org/cvss/cvss-v3.0.json': 'csaf/cvss-v3.0.json',
  'https://www.first.org/cvss/cvss-v3.1.json': 'csaf/cvss-v3.1.json',
};

/** A new validator; schemas compile lazily on first use of each format. */
export function createVexSchemaValidator(): VexSchemaValidator {
  let cdxAjv: Ajv | undefined;
  const cdx = new Map<CycloneDxSchemaVersion, ValidateFunction>();
  let openvexFn: ValidateFunction | undefined;
  let csafFn: ValidateFunction | undefined;

  const cycloneDxValidator = (version: CycloneDxSchemaVersion): ValidateFunction => {
    const cached = cdx.get(version);
    if (cached !== undefined) return cached;
    if (cdxAjv === undefined) {
      // strict off: the CycloneDX schemas carry annotation keywords (meta:enum, deprecated) unknown to draft-07.
      cdxAjv = new Ajv({ strict: false, allErrors: true });
      addFormats(cdxAjv);
      addMissingFormats(cdxAjv);
      // Resolved through their $id (http://cyclonedx.org/schema/...), as the relative $refs expect.
      cdxAjv.addSchema(loadSchema('cyclonedx/spdx.schema.json'));
      cdxAjv.addSchema(loadSchema('cyclonedx/jsf-0.82.schema.json'));
    }
    const fn = cdxAjv.compile(loadSchema(CDX_SCHEMAS[version]));
    cdx.set(version, fn);
    return fn;
  };

  const openVexValidator = (): ValidateFunction => {
    if (openvexFn === undefined) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      addMissingFormats(ajv);
      openvexFn = ajv.compile(loadSchema('openvex/openvex_json_schema.json'));
    }
    return openvexFn;
  };

  const csafValidator = (): ValidateFunction => {
    if (csafFn === undefined) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      addMissingFormats(ajv);
      for (const [id, file] of Object.entries(CSAF_CVSS_REFS)) {
        const schema: AnySchemaObject = { ...loadSchema(file) };
        delete schema.$schema;
        delete schema.id;
        ajv.addSchema({ ...schema, $id: id });
      }
      csafFn = ajv.compile(loadSchema('csaf/csaf_json_schema.json'));
    }
    return csafFn;
  };

  const cyclonedx = (doc: unknown, version?: CycloneDxSchemaVersion): SchemaValidationResult => {
    const declared = (doc as { specVersion?: unknown } | null)?.specVersion;
    const v = version ?? (declared === '1.4' || declared === '1.5' || declared === '1.6' ? declared : undefined);
    if (v === undefined) return { valid: false, errors: [`/specVersion unsupported: ${JSON.stringify(declared)}`] };
    return result(cycloneDxValidator(v), doc);
  };
  const openvex = (doc: unknown): SchemaValidationResult => result(openVexValidator(), doc);
  const csaf = (doc: unknown): SchemaValidationResult => result(csafValidator(), doc);

  return {
    cyclonedx,
    openvex,
    csaf,
    validate(format, doc) {
      switch (format) {
        case 'cyclonedx_vex':
          return cyclonedx(doc);
        case 'openvex':
          return openvex(doc);
        case 'csaf':
          return csaf(doc);
      }
    },
  };
}

let shared: VexSchemaValidator | undefined;
/** Process-wide validator, so the 250 KB CycloneDX schema compiles once per test file. */
export function vexSchemaValidator(): VexSchemaValidator {
  return (shared ??= createVexSchemaValidator());
}

// ---- SARIF 2.1.0 (draft-04 schema, so the draft-04 Ajv class) ----

let sarifFn: ValidateFunction | undefined;
/** Validates a SARIF log against the official SARIF 2.1.0 schema (OASIS errata01, test/fixtures/schemas/sarif). */
export function validateSarif(doc: unknown): SchemaValidationResult {
  if (sarifFn === undefined) {
    const ajv = new AjvDraft04({ strict: false, allErrors: true });
    addFormats(ajv);
    sarifFn = ajv.compile(loadSchema('sarif/sarif-schema-2.1.0.json'));
  }
  return result(sarifFn, doc);
}

// ---- CSAF 2.0 mandatory tests (@secvisogram/csaf-validator-lib) ----

export interface CsafTestMessage {
  message: string;
  instancePath: string;
}
export interface CsafTestFailure {
  test: string;
  errors: CsafTestMessage[];
}
export interface CsafMandatoryReport {
  isValid: boolean;
  /** Names of the tests that ran (schema test + every 6.1.x). */
  testsRun: string[];
  failures: CsafTestFailure[];
}

type DocumentTest = (doc: unknown) => unknown;
interface CsafLib {
  validateStrict: (
    tests: DocumentTest[],
    doc: unknown,
  ) => Promise<{
    isValid: boolean;
    tests: Array<{ name: string; isValid: boolean; errors: CsafTestMessage[] }>;
  }>;
  mandatory: Record<string, DocumentTest>;
  schema: Record<string, DocumentTest>;
}

let csafLib: Promise<CsafLib> | undefined;
/**
 * The library is plain ESM JavaScript without type declarations; a computed specifier
 * keeps TypeScript from demanding them, and the shape is pinned by CsafLib above.
 */
function loadCsafLib(): Promise<CsafLib> {
  const base = '@secvisogram/csaf-validator-lib';
  const load = async (file: string): Promise<unknown> => (await import(`${base}/${file}`)) as unknown;
  // One after the other: jest's ESM loader can fail concurrent imports of modules they share
  // ("request for './mandatoryTests/mandatoryTest_6_1_1.js' is not in cache").
  return (csafLib ??= (async () => {
    const strictModule = await load('validateStrict.js');
    const mandatory = await load('mandatoryTests.js');
    const schema = await load('schemaTests.js');
    return {
      validateStrict: (strictModule as { default: CsafLib['validateStrict'] }).default,
      mandatory: mandatory as Record<string, DocumentTest>,
      schema: schema as Record<string, DocumentTest>,
    };
  })());
}

/**
 * Runs `validateStrict` with the strict CSAF 2.0 schema test and every mandatory test
 * (6.1.1-6.1.33, including the csaf_vex profile tests 6.1.27.x).
 */
export async function runCsafMandatoryTests(doc: unknown): Promise<CsafMandatoryReport> {
  const lib = await loadCsafLib();
  const schemaTest = lib.schema.csaf_2_0_strict;
  if (schemaTest === undefined) throw new Error('csaf-validator-lib: csaf_2_0_strict not found');
  const tests = [schemaTest, ...Object.values(lib.mandatory)];
  const res = await lib.validateStrict(tests, doc);
  return {
    isValid: res.isValid,
    testsRun: res.tests.map((t) => t.name),
    failures: res.tests.filter((t) => !t.isValid).map((t) => ({ test: t.name, errors: t.errors })),
  };
}

export interface CsafOptionalReport {
  /** One entry per warning of an optional (recommended) test, named like the library's export (`optionalTest_6_2_11`). */
  warnings: Array<{ test: string; message: string; instancePath: string }>;
}

/** Runs every CSAF 2.0 optional test (6.2.x) of @secvisogram/csaf-validator-lib; they report warnings, not errors. */
export async function runCsafOptionalTests(doc: unknown): Promise<CsafOptionalReport> {
  const optional = (await import(`${'@secvisogram/csaf-validator-lib'}/optionalTests.js`)) as Record<
    string,
    (d: unknown) => unknown
  >;
  const warnings: CsafOptionalReport['warnings'] = [];
  for (const [test, run] of Object.entries(optional)) {
    if (typeof run !== 'function') continue;
    const result = (await run(doc)) as { warnings?: CsafTestMessage[] } | undefined;
    for (const w of result?.warnings ?? []) warnings.push({ test, message: w.message, instancePath: w.instancePath });
  }
  return { warnings };
}
