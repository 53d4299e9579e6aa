/**
 * VEX mapping: grouping of findings and CSAF document tracking (test/support/vex-mapping.ts renders
 * each cell and checks the documents).
 */
import { describe, expect, it } from '@jest/globals';
import { generateCsaf } from '../../shared/service/vex/formats';
import type { VexDisposition, VexGenerationInput } from '../../shared/service/vex/model';
import { baseVexInput, vexDisposition, vexFinding } from '../bench/vex-generation';
import { COMPONENT, cdxVuln, csafVuln, property, render, single, statement } from '../support/vex-mapping';

describe('grouping and duplicates', () => {
  const two = (a: VexDisposition | null, b: VexDisposition | null, sameComponent: boolean): VexGenerationInput =>
    baseVexInput({
      components: [
        COMPONENT,
        { ...COMPONENT, ref: 'pkg:npm/minimist@1.2.0', version: '1.2.0', purl: 'pkg:npm/minimist@1.2.0' },
      ],
      findings: [
        vexFinding({ id: 'f-a', componentRef: COMPONENT.ref, cveId: 'CVE-2021-44906', disposition: a }),
        vexFinding({
          id: 'f-b',
          componentRef: sameComponent ? COMPONENT.ref : 'pkg:npm/minimist@1.2.0',
          cveId: null,
          advisoryId: 'GHSA-xvch-5gv4-984h',
          aliases: ['CVE-2021-44906'],
          disposition: b,
        }),
      ],
    });

  it('identical assertions on two components share one OpenVEX statement / CycloneDX entry; CSAF has one vulnerability', async () => {
    const d = vexDisposition({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' });
    const r = await render(two(d, d, false));
    expect(statement(r).products[0]?.subcomponents).toHaveLength(2);
    expect(cdxVuln(r).affects.map((a) => a.ref)).toEqual(['pkg:npm/minimist@1.2.0', 'pkg:npm/minimist@1.2.5']);
    expect(csafVuln(r).product_status.known_not_affected).toHaveLength(2);
  });

  it('different assertions stay separate OpenVEX statements, one CycloneDX entry (least reassuring analysis) and one CSAF vulnerability', async () => {
    const r = await render(
      two(vexDisposition({ status: 'fixed' }), vexDisposition({ status: 'affected', response: 'update' }), false),
    );
    expect(r.openvex.statements.map((s) => s.status).sort()).toEqual(['affected', 'fixed']);
    // Trivy reads the first entry of an id only (pkg/vex/cyclonedx.go lo.Find): one entry per id with every component.
    const entry = cdxVuln(r);
    expect(entry.affects).toHaveLength(2);
    expect(entry.analysis.state).toBe('exploitable');
    expect(entry.affects.map((a) => a.versions?.[0]?.status).sort()).toEqual(['affected', 'unaffected']);
    expect(property(r, 'vexdesk:component-status')).toHaveLength(2);
    expect(Object.keys(csafVuln(r).product_status).sort()).toEqual(['fixed', 'known_affected']);
  });

  it.each([
    [
      'affected beats not_affected',
      vexDisposition({ status: 'not_affected', justification: 'component_not_present' }),
      vexDisposition({ status: 'affected', response: 'update' }),
      'affected',
    ],
    ['untriaged beats fixed', vexDisposition({ status: 'fixed' }), null, 'under_investigation'],
    [
      'fixed beats not_affected',
      vexDisposition({ status: 'not_affected', justification: 'component_not_present' }),
      vexDisposition({ status: 'fixed' }),
      'fixed',
    ],
  ] as const)(
    'duplicate findings of one component merge, least reassuring status wins: %s',
    async (_label, a, b, expected) => {
      const r = await render(two(a, b, true));
      expect(statement(r).status).toBe(expected);
      expect(property(r, 'vexdesk:finding')).toEqual(['f-a', 'f-b']);
    },
  );

  it('among equal statuses the most recently updated disposition wins', async () => {
    const older = vexDisposition({
      status: 'not_affected',
      justification: 'component_not_present',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    const newer = vexDisposition({
      status: 'not_affected',
      justification: 'inline_mitigations_already_exist',
      updatedAt: '2026-02-01T00:00:00Z',
    });
    const r = await render(two(older, newer, true));
    expect(statement(r).justification).toBe('inline_mitigations_already_exist');
  });
});

describe('CSAF document tracking', () => {
  it('revision history runs 1..version with ascending dates, supplied entries kept', async () => {
    const input = single(null);
    const r = await render({
      ...input,
      document: {
        ...input.document,
        version: 4,
        revisions: [
          { version: 1, date: '2026-02-01T09:00:00.000Z', summary: 'First publication.' },
          { version: 3, date: '2026-01-15T00:00:00.000Z', summary: 'Out-of-order date.' },
        ],
      },
    });
    expect(r.csaf.document.tracking.revision_history).toEqual([
      { number: '1', date: '2026-02-01T09:00:00.000Z', summary: 'First publication.' },
      {
        number: '2',
        date: '2026-02-01T09:00:00.000Z',
        summary: 'Regenerated from the current dispositions (version 2).',
      },
      { number: '3', date: '2026-02-01T09:00:00.000Z', summary: 'Out-of-order date.' },
      {
        number: '4',
        date: '2026-03-01T12:00:00.000Z',
        summary: 'Regenerated from the current dispositions (version 4).',
      },
    ]);
    expect(r.csaf.document.tracking.version).toBe('4');
    expect(r.csaf.document.tracking.initial_release_date).toBe('2026-02-01T09:00:00.000Z');
  });

  it('published documents are final', async () => {
    const input = single(null);
    const r = await render({ ...input, document: { ...input.document, status: 'final', version: 1, revisions: [] } });
    expect(r.csaf.document.tracking.status).toBe('final');
    expect(r.csaf.document.distribution).toEqual({ tlp: { label: 'WHITE', url: 'https://www.first.org/tlp/' } });
    expect(generateCsaf(input).document.distribution).toBeUndefined(); // drafts are not labelled for sharing
    expect(r.cdx.metadata.properties).toContainEqual({ name: 'vexdesk:document:status', value: 'final' });
  });

  it('a release version that reads like a range is not put in a product_version branch (test 6.1.31)', async () => {
    const input = single(null);
    const r = await render({ ...input, release: { ...input.release, version: 'all platforms 2026' } });
    const nameBranch = r.csaf.product_tree.branches[0]?.branches?.[0];
    expect(nameBranch?.branches).toBeUndefined();
    expect(nameBranch?.product?.name).toBe('Acme Corp Acme Widget Server all platforms 2026');
  });
});
