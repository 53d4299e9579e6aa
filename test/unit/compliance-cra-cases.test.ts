/**
 * The compliance report's CRA Article 14 cases (docs/compliance-report.md "Sections"): each report's
 * deadline, submission and whether it was met or late by how much, on the report's fixed clock.
 */
import { describe, expect, it } from '@jest/globals';
import { formatDuration } from '../../shared/service/compliance/cra-cases';
import { buildSampleReportInput } from '../../shared/service/compliance/fixtures';
import type { ComplianceReportInput } from '../../shared/service/compliance/model';
import { renderComplianceReport } from '../../shared/service/compliance/report';
import { section } from '../support/assertions';

type CraCaseInput = NonNullable<ComplianceReportInput['craCases']>[number];

// buildSampleReportInput's generatedAt: the report's "now".
const GENERATED_AT = '2025-06-30T12:00:00.000Z';

const notified: CraCaseInput = {
  id: 'case-1',
  vulnerabilityId: 'CVE-2025-0001',
  aliases: ['GHSA-aaaa-bbbb-cccc'],
  status: 'notified',
  awareAt: '2025-06-20T08:00:00.000Z',
  affectedVersions: ['4.1.0', '4.2.0'],
  deadlines: {
    early_warning: '2025-06-21T08:00:00.000Z',
    notification: '2025-06-23T08:00:00.000Z',
    final_report: '2025-07-09T00:00:00.000Z',
  },
  submissions: [
    { stage: 'early_warning', submittedAt: '2025-06-21T07:00:00.000Z', reference: 'EW-<b>1</b>' },
    { stage: 'notification', submittedAt: '2025-06-24T10:30:00.000Z', reference: 'N-1' },
  ],
  usersInformedAt: '2025-06-26T09:15:00.000Z',
};

const overdue: CraCaseInput = {
  id: 'case-2',
  vulnerabilityId: 'CVE-2025-0002',
  status: 'open',
  awareAt: '2025-06-28T00:00:00.000Z',
  affectedVersions: ['4.2.0'],
  deadlines: {
    early_warning: '2025-06-29T00:00:00.000Z',
    notification: '2025-07-01T00:00:00.000Z',
    final_report: null,
  },
};

function casesSection(craCases: CraCaseInput[]): string {
  const { html } = renderComplianceReport({ ...buildSampleReportInput(), craCases });
  const cra = section(html, 'cra');
  return cra.slice(cra.indexOf('Article 14 cases of this release'));
}

/** The outcome badge of the row whose report cell starts with `stage`, in the rows of `vulnerability`. */
function outcome(html: string, vulnerability: string, stage: string): string {
  const rows = html.slice(html.indexOf(`<strong>${vulnerability}</strong>`));
  const row = rows.slice(rows.indexOf(`<td>${stage}`));
  return /<span class="badge st-([a-z_]+)">([^<]+)<\/span>/.exec(row)!.slice(1, 3).join(': ');
}

describe('compliance report: CRA Article 14 cases of the release', () => {
  it('says so when no case lists the release', () => {
    expect(buildSampleReportInput().generatedAt).toBe(GENERATED_AT);
    expect(casesSection([])).toContain('No CRA Article 14 case lists this release.');
  });

  it('lists each deadline, the submission and whether it was met or late by how much', () => {
    const html = casesSection([overdue, notified]);
    // In order of awareness, with what the case is about.
    expect(html.indexOf('CVE-2025-0001')).toBeLessThan(html.indexOf('CVE-2025-0002'));
    expect(html).toContain('GHSA-aaaa-bbbb-cccc');
    expect(html).toContain('notified · aware since 2025-06-20 08:00 UTC · versions 4.1.0, 4.2.0');
    expect(html).toContain('users informed 2025-06-26 09:15 UTC');

    expect(outcome(html, 'CVE-2025-0001', 'Early warning')).toBe('met: Met');
    expect(html).toContain('2025-06-21 07:00 UTC<br><span class="mono small">EW-&lt;b&gt;1&lt;/b&gt;</span>');
    // Due 23 June 08:00, submitted 24 June 10:30.
    expect(outcome(html, 'CVE-2025-0001', 'Vulnerability notification')).toBe('not_evidenced: Late by 1 d 2 h');
    // Due 9 July 00:00, 8.5 days after the report.
    expect(outcome(html, 'CVE-2025-0001', 'Final report')).toBe('partial: Due in 8 d 12 h');

    // Due 29 June 00:00 and not submitted at 30 June 12:00.
    expect(outcome(html, 'CVE-2025-0002', 'Early warning')).toBe('not_evidenced: Overdue by 1 d 12 h, not submitted');
    expect(outcome(html, 'CVE-2025-0002', 'Vulnerability notification')).toBe('partial: Due in 12 h');
    expect(outcome(html, 'CVE-2025-0002', 'Final report')).toBe('manual: Not yet due');
    expect(html).toContain('not running: no corrective or mitigating measure recorded');
  });

  it('does not call a dismissed case overdue', () => {
    const html = casesSection([{ ...overdue, status: 'dismissed', dismissalReason: 'not_affected: not in path' }]);
    expect(outcome(html, 'CVE-2025-0002', 'Early warning')).toBe('manual: Not submitted: the case was dismissed');
    expect(html).toContain('dismissed: not_affected: not in path');
  });

  it('reads a duration in its two largest units', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(40)).toBe('40 s');
    expect(formatDuration(5 * 3600 + 12 * 60 + 9)).toBe('5 h 12 min');
    expect(formatDuration(86_400 + 30)).toBe('1 d');
    expect(formatDuration(3 * 86_400 + 2 * 3600 + 59)).toBe('3 d 2 h');
  });
});
