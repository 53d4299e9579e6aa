/**
 * VEX mapping: CVSS scores, EPSS, KEV and CWE in each format (test/support/vex-mapping.ts renders each
 * cell and checks the documents).
 */
import { describe, expect, it } from '@jest/globals';
import type { VexFinding } from '../../shared/service/vex/model';
import { vexDisposition } from '../bench/vex-generation';
import { cdxVuln, csafVuln, property, render, single } from '../support/vex-mapping';

describe('scores, EPSS, KEV, CWE', () => {
  const scored = (extra: Partial<VexFinding>) => single(vexDisposition({ status: 'under_investigation' }), extra);

  it('CVSS v2 / v3.0 / v3.1 / v4.0 -> CycloneDX rating methods; CSAF cvss_v2/cvss_v3 and a v4 note', async () => {
    const r = await render(
      scored({
        cvssV2: { vector: '(AV:N/AC:L/Au:N/C:P/I:P/A:P)', score: 7.5, severity: 'HIGH' },
        cvssV3: { vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', score: 8.8, severity: 'HIGH' },
        cvssV4: {
          vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
          score: 9.3,
          severity: 'CRITICAL',
        },
      }),
    );
    expect(cdxVuln(r).ratings).toEqual([
      {
        method: 'CVSSv4',
        score: 9.3,
        severity: 'critical',
        vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
      },
      { method: 'CVSSv3', score: 8.8, severity: 'high', vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H' },
      { method: 'CVSSv2', score: 7.5, severity: 'high', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
    ]);
    const scores = csafVuln(r).scores?.[0];
    expect(scores?.cvss_v3).toEqual({
      version: '3.0',
      vectorString: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H',
      baseScore: 8.8,
      baseSeverity: 'HIGH',
    });
    expect(scores?.cvss_v2).toEqual({ version: '2.0', vectorString: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', baseScore: 7.5 });
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v4.0',
      text: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N (base score 9.3, critical)',
    });
  });

  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'critical'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10, 'critical'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 'medium'],
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N', 5.5, 'medium'],
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', 5.9, 'medium'],
    ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', 1.6, 'low'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0, 'none'],
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H/E:P/RL:O/RC:C', 9.9, 'critical'],
    ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'critical'], // prefix-less v3 vector is read as 3.1
  ] as const)('v3 base score is computed from the vector: %s -> %s', async (vector, score, severity) => {
    // The stored score is deliberately wrong: the vector is authoritative (CSAF test 6.1.9 checks it).
    const r = await render(scored({ cvssV3: { vector, score: 4.2, severity: 'MEDIUM' } }));
    expect(cdxVuln(r).ratings?.[0]).toMatchObject({ score, severity });
    expect(csafVuln(r).scores?.[0]?.cvss_v3).toMatchObject({ baseScore: score, baseSeverity: severity.toUpperCase() });
  });

  it.each([
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5],
    ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3],
    ['AV:N/AC:M/Au:N/C:C/I:C/A:C', 9.3],
    ['AV:L/AC:L/Au:N/C:C/I:C/A:C', 7.2],
    ['CVSS:2.0/AV:N/AC:L/Au:S/C:P/I:N/A:N', 4],
  ] as const)('v2 base score is computed from the vector: %s -> %s', async (vector, score) => {
    const r = await render(scored({ cvssV2: { vector, score: 1, severity: null } }));
    expect(cdxVuln(r).ratings?.find((x) => x.method === 'CVSSv2')?.score).toBe(score);
    expect(csafVuln(r).scores?.[0]?.cvss_v2?.baseScore).toBe(score);
  });

  it('CSAF scores only name products still exposed; a fixed-only vulnerability keeps its CVSS as a note (optional test 6.2.19)', async () => {
    const r = await render(single(vexDisposition({ status: 'fixed' })));
    expect(csafVuln(r).scores).toBeUndefined();
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v3.1',
      text: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H (base score 9.8, critical)',
    });
    expect(cdxVuln(r).ratings).toHaveLength(1);
  });

  it('an unparsable vector is kept in CycloneDX as stored but only as a note in CSAF', async () => {
    const r = await render(scored({ cvssV3: { vector: 'CVSS:3.1/AV:X/garbage', score: 7.1, severity: 'HIGH' } }));
    expect(cdxVuln(r).ratings).toEqual([
      { method: 'CVSSv31', score: 7.1, severity: 'high', vector: 'CVSS:3.1/AV:X/garbage' },
    ]);
    expect(csafVuln(r).scores).toBeUndefined();
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'CVSS v3.1',
      text: 'CVSS:3.1/AV:X/garbage (base score 7.1, high)',
    });
  });

  it('EPSS is not a rating: CycloneDX properties, CSAF note, absent from OpenVEX', async () => {
    const r = await render(scored({ epss: { score: 0.00521, percentile: 0.7712 } }));
    expect(cdxVuln(r).ratings?.map((x) => x.method)).toEqual(['CVSSv31']);
    expect(property(r, 'vexdesk:epss:score')).toEqual(['0.00521']);
    expect(property(r, 'vexdesk:epss:percentile')).toEqual(['0.7712']);
    expect(csafVuln(r).notes).toContainEqual({
      category: 'other',
      title: 'EPSS',
      text: 'EPSS probability 0.00521 (percentile 0.7712).',
    });
    expect(JSON.stringify(r.openvex)).not.toContain('0.00521');
  });

  it('KEV: CycloneDX property, CSAF exploit_status threat', async () => {
    const r = await render(scored({ isKev: true }));
    expect(property(r, 'vexdesk:cisa_kev')).toEqual(['true']);
    expect(csafVuln(r).threats).toContainEqual(expect.objectContaining({ category: 'exploit_status' }));
    const notKev = await render(scored({ isKev: false }));
    expect(property(notKev, 'vexdesk:cisa_kev')).toEqual([]);
    expect(csafVuln(notKev).threats).toBeUndefined();
  });

  it('CWE: CycloneDX numbers; CSAF cwe only with the official name, all ids in a note otherwise', async () => {
    const r = await render(scored({ cwes: ['CWE-1321', 'CWE-502', 'NVD-CWE-Other'] }));
    expect(cdxVuln(r).cwes).toEqual([502, 1321]);
    expect(csafVuln(r).cwe).toEqual({ id: 'CWE-502', name: 'Deserialization of Untrusted Data' });
    expect(csafVuln(r).notes).toContainEqual({ category: 'other', title: 'CWE', text: 'CWE-502, CWE-1321' });
    const unnamed = await render({ ...scored({ cwes: ['CWE-1321'] }), cweNames: {} });
    expect(csafVuln(unnamed).cwe).toBeUndefined();
    expect(csafVuln(unnamed).notes).toContainEqual({ category: 'other', title: 'CWE', text: 'CWE-1321' });
  });
});
