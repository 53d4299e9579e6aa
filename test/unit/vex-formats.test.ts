import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import {
  VexGenerationError,
  generateCsaf,
  generateCycloneDxVex,
  generateOpenVex,
  generateVex,
  serializeVex,
  vexMediaType,
  cyclonedxSerialNumber,
  type VexDocument,
} from '../../shared/service/vex/formats';
import type { VexFormat, VexGenerationInput } from '../../shared/service/vex/model';
import { baseVexInput, buildSampleVexInput, vexFinding } from '../bench/vex-generation';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

const FORMATS: readonly VexFormat[] = ['cyclonedx_vex', 'openvex', 'csaf'];
const EXAMPLES_DIR = fileURLToPath(new URL('../fixtures/vex-examples/', import.meta.url));

type JsonObject = Record<string, unknown>;

function examples(folder: 'cyclonedx' | 'openvex' | 'csaf'): Array<{ file: string; doc: JsonObject }> {
  return readdirSync(`${EXAMPLES_DIR}${folder}`)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, doc: JSON.parse(readFileSync(`${EXAMPLES_DIR}${folder}/${file}`, 'utf8')) as JsonObject }));
}

function keysOf(value: unknown): string[] {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

/** Keys present in every object of `objects` (what all real publishers emit). */
function commonKeys(objects: unknown[]): string[] {
  const [first, ...rest] = objects.map((o) => new Set(keysOf(o)));
  if (first === undefined) return [];
  return [...first].filter((k) => rest.every((s) => s.has(k))).sort();
}

function asArray(value: unknown): JsonObject[] {
  return Array.isArray(value) ? (value as JsonObject[]) : [];
}

/** JSON paths (array indexes included) whose values differ between two documents. */
function diffPaths(a: unknown, b: unknown, path = ''): string[] {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diffPaths((a as JsonObject)[k], (b as JsonObject)[k], `${path}/${k}`));
  }
  return a === b ? [] : [path];
}

describe('VEX generation: sample release in all three formats', () => {
  const input = buildSampleVexInput();
  const docs = Object.fromEntries(FORMATS.map((f) => [f, generateVex(f, input)])) as Record<VexFormat, VexDocument>;

  it.each(FORMATS)('%s is valid against its official JSON schema', (format) => {
    const result = vexSchemaValidator().validate(format, docs[format]);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('CycloneDX is valid against the 1.6 schema it declares', () => {
    const doc = generateCycloneDxVex(input);
    expect(doc.specVersion).toBe('1.6');
    expect(vexSchemaValidator().cyclonedx(doc, '1.6').errors).toEqual([]);
  });

  it('CSAF passes the strict schema test and every CSAF 2.0 mandatory test, csaf_vex profile included', async () => {
    const report = await runCsafMandatoryTests(docs.csaf);
    expect(report.failures).toEqual([]);
    expect(report.isValid).toBe(true);
    expect(report.testsRun).toEqual(
      expect.arrayContaining([
        'csaf_2_0_strict',
        'mandatoryTest_6_1_9',
        'mandatoryTest_6_1_13',
        'mandatoryTest_6_1_21',
        'mandatoryTest_6_1_23',
        'mandatoryTest_6_1_27_4',
        'mandatoryTest_6_1_27_5',
        'mandatoryTest_6_1_27_6',
        'mandatoryTest_6_1_27_7',
        'mandatoryTest_6_1_27_8',
        'mandatoryTest_6_1_27_9',
        'mandatoryTest_6_1_27_10',
        'mandatoryTest_6_1_27_11',
        'mandatoryTest_6_1_33',
      ]),
    );
    expect(report.testsRun.length).toBeGreaterThanOrEqual(44);
  });

  it('covers every status in every format, including an untriaged finding', () => {
    const cdx = generateCycloneDxVex(input);
    expect(new Set(cdx.vulnerabilities.map((v) => v.analysis.state))).toEqual(
      new Set(['exploitable', 'not_affected', 'resolved', 'in_triage']),
    );
    const openvex = generateOpenVex(input);
    expect(new Set(openvex.statements.map((s) => s.status))).toEqual(
      new Set(['affected', 'not_affected', 'fixed', 'under_investigation']),
    );
    const csaf = generateCsaf(input);
    const groups = new Set(csaf.vulnerabilities.flatMap((v) => Object.keys(v.product_status)));
    expect(groups).toEqual(new Set(['known_affected', 'known_not_affected', 'fixed', 'under_investigation']));
    expect(openvex.statements.some((s) => s.status_notes?.includes('not yet triaged'))).toBe(true);
  });

  it('does not publish SBOM components that no finding references', () => {
    for (const format of FORMATS) expect(serializeVex(docs[format])).not.toContain('left-pad');
  });
});

describe('determinism', () => {
  it.each(FORMATS)('%s: the same input gives byte-identical output', (format) => {
    expect(serializeVex(generateVex(format, buildSampleVexInput()))).toBe(
      serializeVex(generateVex(format, buildSampleVexInput())),
    );
  });

  it.each(FORMATS)('%s: the order of findings, components, aliases and SBOMs does not matter', (format) => {
    const input = buildSampleVexInput();
    const shuffled: VexGenerationInput = {
      ...input,
      components: [...input.components].reverse(),
      findings: [...input.findings]
        .reverse()
        .map((f) => ({ ...f, aliases: [...f.aliases].reverse(), cwes: [...f.cwes].reverse() })),
      sboms: [...input.sboms].reverse(),
    };
    expect(serializeVex(generateVex(format, shuffled))).toBe(serializeVex(generateVex(format, input)));
  });

  it.each(FORMATS)('%s: a regeneration changes only version and time fields', (format) => {
    const v3 = buildSampleVexInput();
    const v4: VexGenerationInput = {
      ...v3,
      document: { ...v3.document, version: 4, generatedAt: '2026-03-05T08:00:00.000Z' },
    };
    const changed = diffPaths(generateVex(format, v3), generateVex(format, v4));
    const allowed: Record<VexFormat, RegExp> = {
      cyclonedx_vex: /^\/(version|metadata\/timestamp)$/,
      openvex: /^\/(version|last_updated|statements\/\d+\/timestamp)$/,
      csaf: /^\/document\/tracking\/(version|current_release_date|generator\/date|revision_history\/\d+(\/(date|number|summary))?)$/,
    };
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.filter((p) => !allowed[format].test(p))).toEqual([]);
  });

  it('keeps the document identity across versions (CycloneDX serial, OpenVEX @id, CSAF tracking id)', () => {
    const v3 = buildSampleVexInput();
    const v4: VexGenerationInput = { ...v3, document: { ...v3.document, version: 4 } };
    expect(generateCycloneDxVex(v4).serialNumber).toBe(generateCycloneDxVex(v3).serialNumber);
    expect(generateCycloneDxVex(v3).serialNumber).toBe(cyclonedxSerialNumber(v3.document.id));
    expect(generateCycloneDxVex(v3).serialNumber).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(generateOpenVex(v4)['@id']).toBe(generateOpenVex(v3)['@id']);
    expect(generateOpenVex(v3)['@id']).toBe(
      'https://vexdesk.example/teams/0b5d3c9e-7f60-4d4b-9a1e-5d7c2b1f0a11/vex/vex-2f6c1a8e-acme-widget-2-4-1',
    );
    expect(generateCsaf(v4).document.tracking.id).toBe(generateCsaf(v3).document.tracking.id);
    const other = { ...v3, document: { ...v3.document, id: 'another-document' } };
    expect(generateCycloneDxVex(other).serialNumber).not.toBe(generateCycloneDxVex(v3).serialNumber);
  });
});

describe('serializeVex and media types', () => {
  it('writes sorted keys, 2-space indentation and a trailing newline', () => {
    const text = serializeVex({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } });
    expect(text).toBe(
      '{\n  "a": {\n    "d": [\n      3,\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}\n',
    );
    expect(() => serializeVex({ score: Number.NaN })).toThrow(TypeError);
  });

  it('serialises a document read back from storage (any key order) to the same bytes', () => {
    const doc = generateCsaf(buildSampleVexInput());
    const reversed = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reversed);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversed(v)]),
        );
      }
      return value;
    };
    expect(serializeVex(reversed(doc) as object)).toBe(serializeVex(doc));
  });

  it('returns documents whose own key order is already canonical', () => {
    for (const format of FORMATS) {
      const doc = generateVex(format, buildSampleVexInput());
      expect(`${JSON.stringify(doc, null, 2)}\n`).toBe(serializeVex(doc));
    }
  });

  it('maps formats to media types', () => {
    expect(vexMediaType('cyclonedx_vex')).toBe('application/vnd.cyclonedx+json');
    expect(vexMediaType('openvex')).toBe('application/json');
    expect(vexMediaType('csaf')).toBe('application/json');
  });
});

describe('input that cannot become a document', () => {
  it('a release without findings: CycloneDX is an empty, valid VEX; OpenVEX and CSAF refuse (their schema/profile need a statement)', () => {
    const empty = baseVexInput();
    const cdx = generateCycloneDxVex(empty);
    expect(cdx.vulnerabilities).toEqual([]);
    expect(vexSchemaValidator().cyclonedx(cdx).errors).toEqual([]);
    for (const format of ['openvex', 'csaf'] as const) {
      expect(() => generateVex(format, empty)).toThrow(VexGenerationError);
      try {
        generateVex(format, empty);
      } catch (e) {
        expect((e as VexGenerationError).code).toBe('vex_no_statements');
        expect((e as VexGenerationError).status).toBe(422);
      }
    }
  });

  it('rejects a finding whose component is not in the input', () => {
    const input = baseVexInput({
      findings: [vexFinding({ id: 'f-1', componentRef: 'pkg:npm/missing@1.0.0', cveId: 'CVE-2024-0001' })],
    });
    expect(() => generateVex('openvex', input)).toThrow(expect.objectContaining({ code: 'vex_unknown_component' }));
  });

  it('rejects invalid input with the failing paths', () => {
    const input = buildSampleVexInput();
    const bad = {
      ...input,
      document: { ...input.document, generatedAt: 'yesterday', publisherNamespace: 'not a url' },
    };
    let error: unknown;
    try {
      generateVex('csaf', bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VexGenerationError);
    const details = (error as VexGenerationError).details ?? [];
    expect(details.map((d) => d.path)).toEqual(
      expect.arrayContaining(['document.generatedAt', 'document.publisherNamespace']),
    );
  });

  it('rejects a finding without any vulnerability id', () => {
    const input = buildSampleVexInput();
    const bad = { ...input, findings: [{ ...input.findings[0]!, cveId: null, advisoryId: null }] };
    expect(() => generateVex('cyclonedx_vex', bad)).toThrow(expect.objectContaining({ code: 'vex_invalid_input' }));
  });
});

describe('structure compared with real publishers (test/fixtures/vex-examples)', () => {
  const input = buildSampleVexInput();

  it('the copied examples themselves validate with the shared validator (sanity check of the fixtures and the validator)', async () => {
    const v = vexSchemaValidator();
    for (const { file, doc } of examples('cyclonedx')) expect([file, v.cyclonedx(doc).errors]).toEqual([file, []]);
    for (const { file, doc } of examples('openvex')) {
      // Trivy's document @id ("aquasecurity/trivy:<hash>") has no IRI scheme; the validator's iri format is right to flag it.
      const expected = file === 'trivy.openvex.json' ? ['/@id must match format "iri" {"format":"iri"}'] : [];
      expect([file, v.openvex(doc).errors]).toEqual([file, expected]);
    }
    for (const { file, doc } of examples('csaf')) {
      expect([file, v.csaf(doc).errors]).toEqual([file, []]);
      expect([file, (await runCsafMandatoryTests(doc)).failures]).toEqual([file, []]);
    }
  });

  it('CycloneDX VEX has every top-level and vulnerability key that all example publishers use', () => {
    const ex = examples('cyclonedx');
    const doc = generateCycloneDxVex(input) as unknown as JsonObject;
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(commonKeys(ex.map((e) => e.doc))));
    const exampleVulns = ex.flatMap((e) => asArray(e.doc.vulnerabilities));
    const ourVulns = asArray(doc.vulnerabilities);
    for (const v of ourVulns) {
      expect(Object.keys(v)).toEqual(expect.arrayContaining(commonKeys(exampleVulns)));
      expect(keysOf(v.analysis)).toEqual(expect.arrayContaining(commonKeys(exampleVulns.map((e) => e.analysis))));
    }
    // Like the CISA examples: the product is metadata.component and every affects ref resolves.
    const refs = new Set([
      (doc.metadata as { component: { 'bom-ref': string } }).component['bom-ref'],
      ...asArray(doc.components).map((c) => c['bom-ref'] as string),
    ]);
    for (const v of ourVulns) for (const a of asArray(v.affects)) expect(refs.has(a.ref as string)).toBe(true);
  });

  it('OpenVEX has every document and statement key that all example publishers use', () => {
    const ex = examples('openvex');
    const doc = generateOpenVex(input) as unknown as JsonObject;
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(commonKeys(ex.map((e) => e.doc))));
    const exampleStatements = ex.flatMap((e) => asArray(e.doc.statements));
    for (const s of asArray(doc.statements)) {
      expect(Object.keys(s)).toEqual(expect.arrayContaining(commonKeys(exampleStatements)));
    }
    expect(doc['@context']).toBe(ex[0]?.doc['@context']);
  });

  it('CSAF VEX has the sections of the OASIS csaf_vex examples, per product status', () => {
    const ex = examples('csaf');
    const doc = generateCsaf(input) as unknown as JsonObject;
    const exDocs = ex.map((e) => e.doc);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(commonKeys(exDocs)));
    const document = doc.document as JsonObject;
    expect(Object.keys(document)).toEqual(expect.arrayContaining(commonKeys(exDocs.map((d) => d.document))));
    expect(keysOf(document.tracking)).toEqual(
      expect.arrayContaining(commonKeys(exDocs.map((d) => (d.document as JsonObject).tracking))),
    );
    expect(keysOf(doc.product_tree)).toEqual(expect.arrayContaining(commonKeys(exDocs.map((d) => d.product_tree))));
    expect(exDocs.every((d) => (d.document as JsonObject).category === 'csaf_vex')).toBe(true);
    expect(document.category).toBe('csaf_vex');

    // Every example vulnerability has notes and product_status; known_affected comes with remediations,
    // known_not_affected with threats or flags. Ours must do the same.
    const exampleVulns = exDocs.flatMap((d) => asArray(d.vulnerabilities));
    const required = commonKeys(exampleVulns).filter((k) => k !== 'cve'); // `ids` replaces `cve` for GHSA-only advisories
    expect(required).toEqual(['notes', 'product_status']);
    for (const v of asArray(doc.vulnerabilities)) {
      expect(Object.keys(v)).toEqual(expect.arrayContaining(required));
      expect('cve' in v || 'ids' in v).toBe(true);
      const status = v.product_status as Record<string, string[]>;
      if (status.known_affected !== undefined) expect(v.remediations).toBeDefined();
      if (status.known_not_affected !== undefined) expect(v.threats !== undefined || v.flags !== undefined).toBe(true);
    }
  });
});
