/**
 * Validation of an imported VEX document against its format's official JSON schema
 * (copies in ./schemas, sources and licences in ./schemas/README.md). The schemas are
 * imported as JSON modules so esbuild inlines them into the function bundle's lazy
 * import chunk: nothing is read from disk at run time. Each validator compiles on its
 * first use and is kept for the life of the process.
 */
import Ajv, { type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorDetail } from '../../errors';
import type { VexFormat } from '../../schemas/vex';
import cdx14 from './schemas/bom-1.4.schema.json' with { type: 'json' };
import cdx15 from './schemas/bom-1.5.schema.json' with { type: 'json' };
import cdx16 from './schemas/bom-1.6.schema.json' with { type: 'json' };
import cdx17 from './schemas/bom-1.7.schema.json' with { type: 'json' };
import cdxSpdx from './schemas/spdx.schema.json' with { type: 'json' };
import cdxJsf from './schemas/jsf-0.82.schema.json' with { type: 'json' };
import cdxCrypto from './schemas/cryptography-defs.schema.json' with { type: 'json' };
import openVexSchema from './schemas/openvex_json_schema.json' with { type: 'json' };
import csafSchema from './schemas/csaf_json_schema.json' with { type: 'json' };
import cvss20 from './schemas/cvss-v2.0.json' with { type: 'json' };
import cvss30 from './schemas/cvss-v3.0.json' with { type: 'json' };
import cvss31 from './schemas/cvss-v3.1.json' with { type: 'json' };

export const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6', '1.7'] as const;
type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];

const CDX_SCHEMAS: Record<CycloneDxVersion, unknown> = { '1.4': cdx14, '1.5': cdx15, '1.6': cdx16, '1.7': cdx17 };
/** The FIRST CVSS schemas under the `$ref` URLs the CSAF schema uses. */
const CSAF_CVSS_REFS: Record<string, unknown> = {
  'https://www.first.org/cvss/cvss-v2.0.json': cvss20,
  'https://www.first.org/cvss/cvss-v3.0.json': cvss30,
  'https://www.first.org/cvss/cvss-v3.1.json': cvss31,
};

/** At most this many failing paths in a 422: enough to fix a document, bounded for a hostile one. */
const MAX_REPORTED_ERRORS = 50;

/**
 * Formats the schemas use that ajv-formats lacks (`iri`, `iri-reference`, `idn-email`): only
 * whitespace is refused. JSON Schema 2020-12 (OpenVEX, CSAF) makes `format` an annotation, and
 * real documents rely on that: Trivy's published OpenVEX has the `@id` `aquasecurity/trivy:<hash>`,
 * which has no IRI scheme. The formats ajv-formats knows (date-time, uri, ...) are still checked.
 */
function addMissingFormats(ajv: Ajv): void {
  ajv.addFormat('iri', /^\S+$/u);
  ajv.addFormat('iri-reference', /^\S*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
}

function newAjv(kind: 'draft-07' | '2020-12'): Ajv {
  // strict off: the CycloneDX schemas carry annotation keywords (meta:enum, deprecated) that Ajv does not know.
  const ajv =
    kind === 'draft-07' ? new Ajv({ strict: false, allErrors: true }) : new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  addMissingFormats(ajv);
  return ajv;
}

let cdxAjv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function cycloneDxValidator(version: CycloneDxVersion): ValidateFunction {
  const key = `cdx-${version}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  if (!cdxAjv) {
    cdxAjv = newAjv('draft-07');
    // Resolved through their $id (http://cyclonedx.org/schema/...), which the relative $refs of the bom schemas name.
    for (const schema of [cdxSpdx, cdxJsf, cdxCrypto]) cdxAjv.addSchema(schema);
  }
  const fn = cdxAjv.compile(CDX_SCHEMAS[version] as AnySchemaObject);
  compiled.set(key, fn);
  return fn;
}

function openVexValidator(): ValidateFunction {
  let fn = compiled.get('openvex');
  if (!fn) {
    fn = newAjv('2020-12').compile(openVexSchema as AnySchemaObject);
    compiled.set('openvex', fn);
  }
  return fn;
}

function csafValidator(): ValidateFunction {
  let fn = compiled.get('csaf');
  if (!fn) {
    const ajv = newAjv('2020-12');
    for (const [id, schema] of Object.entries(CSAF_CVSS_REFS)) {
      // The FIRST files are draft-04 (`id`, `$schema`); registered under the URL the CSAF schema refers to.
      const { $schema: _draft, id: _id, ...rest } = schema as AnySchemaObject;
      ajv.addSchema({ ...rest, $id: id });
    }
    fn = ajv.compile(csafSchema as AnySchemaObject);
    compiled.set('csaf', fn);
  }
  return fn;
}

function details(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((error) => ({
    // JSON pointers (RFC 6901) into the submitted document; '' is the document itself.
    path: error.instancePath === '' ? '/' : error.instancePath,
    message: `${error.message ?? 'is invalid'}${error.keyword === 'additionalProperties' ? `: ${String((error.params as { additionalProperty?: string }).additionalProperty)}` : ''}`,
    code: error.keyword,
  }));
}

/** The schema violations of `document` as JSON-pointer details; empty when it is valid. */
export function schemaViolations(format: VexFormat, document: unknown): ErrorDetail[] {
  if (format === 'cyclonedx_vex') {
    const declared = (document as { specVersion?: unknown }).specVersion;
    if (!CYCLONEDX_VERSIONS.includes(declared as CycloneDxVersion)) {
      return [
        {
          path: '/specVersion',
          message: `CycloneDX ${JSON.stringify(declared)} is not supported for import (${CYCLONEDX_VERSIONS.join(', ')})`,
          code: 'unsupported_version',
        },
      ];
    }
    const fn = cycloneDxValidator(declared as CycloneDxVersion);
    return fn(document) ? [] : details(fn.errors);
  }
  const fn = format === 'openvex' ? openVexValidator() : csafValidator();
  return fn(document) ? [] : details(fn.errors);
}
