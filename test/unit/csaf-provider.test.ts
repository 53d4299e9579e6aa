/**
 * Rules of the CSAF provider (docs/csaf-provider.md): the CSAF 2.0 section 5.1 file name, the
 * release's tracking id, the hash-file form, and the generator taking the provider's tracking.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import {
  csafFileBase,
  csafYear,
  isConformingCsafFileName,
  newTrackingId,
} from '../../shared/service/csaf-provider/naming';
import { checksumFile } from '../../shared/service/disclosures/disclosure-files';
import { generateCsaf } from '../../shared/service/vex/formats';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

describe('CSAF file names (CSAF 2.0 section 5.1)', () => {
  it.each([
    ['Example Company - 2019-YH3234', 'example_company_-_2019-yh3234'],
    ['RHSA-2021:5217', 'rhsa-2021_5217'],
    ['edge-gateway-2.4.1-3f9a1c2b', 'edge-gateway-2_4_1-3f9a1c2b'],
    ['a+b__c..d', 'a+b_c_d'],
  ])('turns tracking id %s into %s.json', (trackingId, fileBase) => {
    expect(csafFileBase(trackingId)).toBe(fileBase);
    expect(isConformingCsafFileName(`${fileBase}.json`)).toBe(true);
  });

  it('gives a release a readable tracking id that stays unique through the release id and yields a conforming name', () => {
    const id = newTrackingId('Edge Gateway!', 'v2.4.1 (LTS)', '3f9a1c2b-0000-4000-8000-000000000000');
    expect(id).toBe('edge-gateway-v2.4.1-lts-3f9a1c2b');
    expect(isConformingCsafFileName(`${csafFileBase(id)}.json`)).toBe(true);
    expect(newTrackingId('x', '1', 'aaaaaaaa-0000')).not.toBe(newTrackingId('x', '1', 'bbbbbbbb-0000'));
  });

  it('puts a document in the UTC year of its initial release date (requirement 11)', () => {
    expect(csafYear('2025-12-31T23:30:00.000-02:00')).toBe('2026');
  });
});

describe('hash files (requirement 18)', () => {
  it('writes the digest first, then two spaces and the file name, as sha256sum -c reads it', () => {
    const bytes = Buffer.from('{"a":1}\n');
    expect(checksumFile('sha512', bytes, 'x.json')).toBe(
      `${createHash('sha512').update(bytes).digest('hex')}  x.json\n`,
    );
  });
});

describe("CSAF generation with the provider's tracking", () => {
  const input = baseVexInput({
    components: [
      { ref: 'pkg:npm/minimist@1.2.5', name: 'minimist', version: '1.2.5', purl: 'pkg:npm/minimist@1.2.5', cpes: [] },
    ],
    findings: [
      vexFinding({
        id: 'f1',
        componentRef: 'pkg:npm/minimist@1.2.5',
        cveId: 'CVE-2021-44906',
        advisoryId: 'GHSA-xvch-5gv4-984h',
        disposition: vexDisposition({ status: 'fixed' }),
      }),
    ],
  });
  const publisher = {
    category: 'coordinator' as const,
    name: 'ACME PSIRT',
    namespace: 'https://psirt.acme.example',
    contact_details: 'psirt@acme.example',
  };

  it("uses the release's tracking id, publication number, earlier revisions and the team publisher; stays valid", async () => {
    const document = generateCsaf({
      ...input,
      document: {
        ...input.document,
        status: 'final',
        generatedAt: '2026-03-01T12:00:00.000Z',
        createdAt: '2026-02-20T00:00:00.000Z',
        csafTracking: {
          id: 'edge-gateway-2.4.1-3f9a1c2b',
          version: 2,
          publisher,
          revisions: [
            { version: 1, date: '2026-01-10T08:00:00.000Z', summary: 'Initial publication.' },
            { version: 2, date: '2026-03-01T12:00:00.000Z', summary: 'Republished.' },
          ],
        },
      },
    });
    expect(document.document.tracking).toMatchObject({
      id: 'edge-gateway-2.4.1-3f9a1c2b',
      version: '2',
      initial_release_date: '2026-01-10T08:00:00.000Z',
      current_release_date: '2026-03-01T12:00:00.000Z',
      revision_history: [
        { number: '1', date: '2026-01-10T08:00:00.000Z', summary: 'Initial publication.' },
        { number: '2', date: '2026-03-01T12:00:00.000Z', summary: 'Republished.' },
      ],
    });
    expect(document.document.publisher).toEqual(publisher);
    expect(vexSchemaValidator().csaf(document).errors).toEqual([]);
    expect((await runCsafMandatoryTests(document)).failures).toEqual([]);
  });

  it("keeps the VEX document's own tracking without it (drafts)", () => {
    const document = generateCsaf(input);
    expect(document.document.tracking.id).toBe(input.document.id);
    expect(document.document.tracking.version).toBe(String(input.document.version));
    expect(document.document.publisher).toEqual({
      category: 'vendor',
      name: input.document.publisherName,
      namespace: input.document.publisherNamespace,
    });
  });
});
