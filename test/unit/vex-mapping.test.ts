/**
 * VEX mapping: status, justification and response in each format (test/support/vex-mapping.ts renders
 * each cell and checks the documents).
 */
import { describe, expect, it } from '@jest/globals';
import {
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_JUSTIFICATION_LOSSY,
  CSAF_REMEDIATION,
} from '../../shared/service/vex/formats';
import type { DispositionResponse } from '../../shared/service/vex/model';
import { vexDisposition } from '../bench/vex-generation';
import { COMPONENT, cdxVuln, csafVuln, property, render, single, statement } from '../support/vex-mapping';

describe('status', () => {
  it.each([
    // [our status, CycloneDX state, CycloneDX version status, OpenVEX status, CSAF product_status group]
    ['affected', 'exploitable', 'affected', 'affected', 'known_affected'],
    ['not_affected', 'not_affected', 'unaffected', 'not_affected', 'known_not_affected'],
    ['fixed', 'resolved', 'unaffected', 'fixed', 'fixed'],
    ['under_investigation', 'in_triage', 'unknown', 'under_investigation', 'under_investigation'],
  ] as const)(
    '%s -> CycloneDX %s (component version %s), OpenVEX %s, CSAF %s',
    async (status, cdxState, versionStatus, ovStatus, csafGroup) => {
      const r = await render(
        single(
          vexDisposition({
            status,
            response: status === 'affected' ? 'update' : null,
            justification: status === 'not_affected' ? 'vulnerable_code_not_present' : null,
          }),
        ),
      );
      expect(cdxVuln(r).analysis.state).toBe(cdxState);
      expect(cdxVuln(r).affects).toEqual([
        {
          ref: COMPONENT.ref,
          versions: [
            { version: '1.2.5', status: versionStatus },
            { version: '1.2.6', status: 'unaffected' },
          ],
        },
      ]);
      expect(property(r, 'vexdesk:status')).toEqual([status]);
      expect(property(r, 'vexdesk:triaged')).toEqual([]);
      expect(statement(r).status).toBe(ovStatus);
      const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
      expect(csafVuln(r).product_status).toEqual({ [csafGroup]: [productId] });
    },
  );

  it('untriaged (no disposition) is published as under investigation everywhere, and says so', async () => {
    const r = await render(single(null));
    expect(cdxVuln(r).analysis.state).toBe('in_triage');
    expect(cdxVuln(r).analysis.detail).toBe('Matched by SBOM scan; not yet triaged.');
    expect(property(r, 'vexdesk:triaged')).toEqual(['false']);
    expect(statement(r).status).toBe('under_investigation');
    expect(statement(r).status_notes).toBe('Matched by SBOM scan; not yet triaged.');
    expect(statement(r).timestamp).toBe('2026-03-01T12:00:00.000Z'); // known since this generation
    expect(Object.keys(csafVuln(r).product_status)).toEqual(['under_investigation']);
    expect(csafVuln(r).notes.some((n) => n.category === 'details' && n.text.includes('not yet triaged'))).toBe(true);
  });
});

describe('justification (not_affected)', () => {
  it.each([
    // [ours = OpenVEX = CSAF flag, CycloneDX, lossy in CycloneDX]
    ['component_not_present', 'code_not_present', true],
    ['vulnerable_code_not_present', 'code_not_present', false],
    ['vulnerable_code_not_in_execute_path', 'code_not_reachable', false],
    ['vulnerable_code_cannot_be_controlled_by_adversary', 'requires_environment', true],
    ['inline_mitigations_already_exist', 'protected_by_mitigating_control', false],
  ] as const)('%s -> CycloneDX %s (lossy: %s)', async (justification, cdxJustification, lossy) => {
    expect(CYCLONEDX_JUSTIFICATION[justification]).toBe(cdxJustification);
    expect(CYCLONEDX_JUSTIFICATION_LOSSY[justification]).toBe(lossy);
    const r = await render(single(vexDisposition({ status: 'not_affected', justification })));
    expect(cdxVuln(r).analysis.justification).toBe(cdxJustification);
    // The original label always survives (needed to round-trip the lossy cells).
    expect(property(r, 'vexdesk:justification')).toEqual([justification]);
    expect(statement(r).justification).toBe(justification);
    expect(statement(r).impact_statement).toBeUndefined();
    const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
    expect(csafVuln(r).flags).toEqual([{ label: justification, product_ids: [productId] }]);
    expect(csafVuln(r).threats).toBeUndefined();
  });

  it('impact statement is carried by all three formats', async () => {
    const impact = 'minimist only parses our own fixed argv.';
    const r = await render(
      single(
        vexDisposition({
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          impactStatement: impact,
        }),
      ),
    );
    expect(cdxVuln(r).analysis.detail).toBe(impact);
    expect(statement(r).impact_statement).toBe(impact);
    expect(csafVuln(r).threats).toEqual([
      {
        category: 'impact',
        details: impact,
        product_ids: [r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id],
      },
    ]);
  });

  it('not_affected without justification: impact statement from the detail (OpenVEX/CSAF require one of the two)', async () => {
    const r = await render(single(vexDisposition({ status: 'not_affected', detail: 'Feature compiled out.' })));
    expect(cdxVuln(r).analysis.justification).toBeUndefined();
    expect(statement(r).justification).toBeUndefined();
    expect(statement(r).impact_statement).toBe('Feature compiled out.');
    expect(csafVuln(r).flags).toBeUndefined();
    expect(csafVuln(r).threats?.[0]).toMatchObject({ category: 'impact', details: 'Feature compiled out.' });
  });

  it('not_affected with neither justification nor text still gets an impact statement', async () => {
    const r = await render(single(vexDisposition({ status: 'not_affected' })));
    expect(statement(r).impact_statement).toBe('Not affected (no justification was recorded).');
    expect(csafVuln(r).threats?.[0]?.details).toBe('Not affected (no justification was recorded).');
  });

  it('a justification on a status other than not_affected is not published', async () => {
    const r = await render(single(vexDisposition({ status: 'fixed', justification: 'component_not_present' })));
    expect(cdxVuln(r).analysis.justification).toBeUndefined();
    expect(property(r, 'vexdesk:justification')).toEqual([]);
    expect(statement(r).justification).toBeUndefined();
    expect(csafVuln(r).flags).toBeUndefined();
  });
});

describe('response (affected)', () => {
  it.each([
    // [ours = CycloneDX response, CSAF remediation category, default action text]
    [
      'update',
      'vendor_fix',
      'Update to a release of Acme Widget Server that includes a fixed version of minimist (fixed in 1.2.6).',
    ],
    [
      'rollback',
      'vendor_fix',
      'Roll back to an earlier release of Acme Widget Server that does not include the vulnerable minimist 1.2.5.',
    ],
    [
      'workaround_available',
      'workaround',
      'A workaround is available for Acme Widget Server 2.4.1; contact Acme Corp PSIRT for instructions.',
    ],
    ['will_not_fix', 'no_fix_planned', 'Acme Corp PSIRT will not fix this vulnerability in Acme Widget Server 2.4.1.'],
    [
      'can_not_fix',
      'none_available',
      'Acme Corp PSIRT cannot fix this vulnerability in Acme Widget Server 2.4.1; no fix is available.',
    ],
  ] as const)('%s -> CSAF %s', async (response: DispositionResponse, category, defaultText) => {
    expect(CSAF_REMEDIATION[response]).toBe(category);
    const r = await render(single(vexDisposition({ status: 'affected', response })));
    expect(cdxVuln(r).analysis.response).toEqual([response]);
    expect(cdxVuln(r).recommendation).toBe(defaultText);
    expect(statement(r).action_statement).toBe(defaultText);
    expect(statement(r).action_statement_timestamp).toBe('2026-02-20T10:00:00.000Z');
    const productId = r.csaf.product_tree.relationships?.[0]?.full_product_name.product_id;
    expect(csafVuln(r).remediations).toEqual([{ category, details: defaultText, product_ids: [productId] }]);
  });

  it("the user's action statement replaces the default text in every format", async () => {
    const action = 'Upgrade to Acme Widget Server 2.4.2.';
    const r = await render(single(vexDisposition({ status: 'affected', response: 'update', actionStatement: action })));
    expect(cdxVuln(r).recommendation).toBe(action);
    expect(statement(r).action_statement).toBe(action);
    expect(csafVuln(r).remediations?.[0]?.details).toBe(action);
  });

  it('affected without a response: none_available with a default text', async () => {
    const r = await render(single(vexDisposition({ status: 'affected' })));
    expect(cdxVuln(r).analysis.response).toBeUndefined();
    expect(statement(r).action_statement).toBe('No remediation is available yet for Acme Widget Server 2.4.1.');
    expect(csafVuln(r).remediations?.[0]?.category).toBe('none_available');
  });

  it('detail and impact statement of an affected finding', async () => {
    const r = await render(
      single(
        vexDisposition({
          status: 'affected',
          response: 'update',
          detail: 'Reachable via CLI flags.',
          impactStatement: 'Local DoS.',
        }),
      ),
    );
    expect(cdxVuln(r).analysis.detail).toBe('Reachable via CLI flags.');
    expect(statement(r).status_notes).toBe('Reachable via CLI flags.\n\nLocal DoS.');
    expect(csafVuln(r).threats?.[0]).toMatchObject({ category: 'impact', details: 'Local DoS.' });
    expect(csafVuln(r).notes).toContainEqual({
      category: 'details',
      title: 'Analysis: minimist 1.2.5',
      text: 'Reachable via CLI flags.',
    });
  });
});
