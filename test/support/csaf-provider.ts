/**
 * The CSAF trusted provider walk's fixed points (test/integration/csaf-provider.test.ts): the public origin
 * and the provider's directory and publisher, the official schemas a provider's documents must pass, and the
 * CSAF 2.0 file-name and hash-file rules written out independently of the service.
 */
import { readFileSync } from 'node:fs';
import type { AnySchemaObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SCHEMA_DIR } from './schema-validation';

export const ORIGIN = 'https://csaf.vexdesk.test';
export const DIRECTORY = 'acme-psirt';
export const PUBLISHER = {
  category: 'vendor',
  name: 'ACME Product Security',
  namespace: 'https://psirt.acme.example',
  contact_details: 'psirt@acme.example',
};

/* eslint-disable @typescript-eslint/no-explicit-any -- the walk reads arbitrary JSON documents */
export interface Fetched {
  status: number;
  contentType: string | null;
  bytes: Buffer;
  text: string;
  json: () => any;
}

function loadSchema(file: string): AnySchemaObject {
  return JSON.parse(readFileSync(`${SCHEMA_DIR}${file}`, 'utf8')) as AnySchemaObject;
}

/**
 * Validators of provider-metadata.json and ROLIE feeds: each answers the errors, none when valid.
 * provider_json_schema.json `$ref`s the CSAF schema's publisher, which `$ref`s the FIRST CVSS schemas.
 */
export function providerSchemas() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('iri', /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/u);
  for (const version of ['2.0', '3.0', '3.1']) {
    const schema: AnySchemaObject = { ...loadSchema(`csaf/cvss-v${version}.json`) };
    delete schema.$schema;
    delete schema.id;
    ajv.addSchema({ ...schema, $id: `https://www.first.org/cvss/cvss-v${version}.json` });
  }
  ajv.addSchema(loadSchema('csaf/csaf_json_schema.json'));
  const validate = (schema: AnySchemaObject) => {
    const fn = ajv.compile(schema);
    return (doc: unknown) => (fn(doc) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`));
  };
  return {
    provider: validate(loadSchema('csaf/provider_json_schema.json')),
    rolieFeed: validate(loadSchema('csaf/ROLIE_feed_json_schema.json')),
  };
}

/** CSAF 2.0 section 5.1, written out independently of the service's implementation. */
export function expectedFileName(trackingId: string): string {
  let name = '';
  let inRun = false;
  for (const char of trackingId.toLowerCase()) {
    const allowed = (char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || char === '+' || char === '-';
    if (allowed) name += char;
    else if (!inRun) name += '_';
    inRun = !allowed;
  }
  return `${name}.json`;
}

/** util.HashFromReader: the first whitespace-separated token, hex-decoded. */
export function hashOfHashFile(text: string): string {
  return text.trim().split(/\s+/)[0] ?? '';
}
