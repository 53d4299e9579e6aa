import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_SLA_POLICY,
  evaluateFindingSla,
  evaluateSla,
  isFinalDisposition,
  resolveSlaPolicy,
  type SlaFinding,
} from '../../shared/service/compliance/sla';

const DAY = 86_400_000;
const DETECTED = '2025-01-01T00:00:00.000Z';
const at = (days: number) => new Date(Date.parse(DETECTED) + days * DAY);
const iso = (days: number) => at(days).toISOString();

function finding(overrides: Partial<SlaFinding> = {}): SlaFinding {
  return {
    severity: 'critical',
    isKev: false,
    kevDueDate: null,
    firstDetectedAt: DETECTED,
    disposition: null,
    ...overrides,
  };
}

type Disposition = NonNullable<SlaFinding['disposition']>;

function decided(status: Disposition['status'], days: number, response: Disposition['response'] = null): Disposition {
  return { status, response, updatedAt: iso(days), decidedAt: null };
}

describe('SLA policy', () => {
  it('defaults to critical 7, high 30, medium 90, low 180, KEV 7 days and at-risk at 75 %', () => {
    expect(DEFAULT_SLA_POLICY).toEqual({ critical: 7, high: 30, medium: 90, low: 180, kev: 7, atRiskRatio: 0.75 });
  });

  it('fills a partial team policy from the defaults', () => {
    expect(resolveSlaPolicy({ critical: 3, atRiskRatio: 0.5 })).toEqual({
      ...DEFAULT_SLA_POLICY,
      critical: 3,
      atRiskRatio: 0.5,
    });
    expect(resolveSlaPolicy(null)).toEqual(DEFAULT_SLA_POLICY);
  });
});

describe('final dispositions', () => {
  it('counts not_affected, fixed and affected with a response as final', () => {
    expect(isFinalDisposition(decided('not_affected', 1))).toBe(true);
    expect(isFinalDisposition(decided('fixed', 1))).toBe(true);
    expect(isFinalDisposition(decided('affected', 1, 'will_not_fix'))).toBe(true);
    expect(isFinalDisposition(decided('affected', 1, 'update'))).toBe(true);
  });

  it('keeps the clock running for under_investigation, affected without a response and no disposition', () => {
    expect(isFinalDisposition(decided('under_investigation', 1))).toBe(false);
    expect(isFinalDisposition(decided('affected', 1))).toBe(false);
    expect(isFinalDisposition(null)).toBe(false);
  });
});

describe('evaluateFindingSla', () => {
  it('is open within the window before the at-risk share has elapsed', () => {
    const sla = evaluateFindingSla(finding(), DEFAULT_SLA_POLICY, at(3));
    expect(sla).toMatchObject({
      state: 'open_within',
      windowDays: 7,
      elapsedDays: 3,
      remainingDays: 4,
      closedAt: null,
      final: false,
    });
    expect(sla.dueAt).toBe(iso(7));
  });

  it('is at risk once 75 % of the window has elapsed', () => {
    expect(evaluateFindingSla(finding(), DEFAULT_SLA_POLICY, at(5.24)).state).toBe('open_within');
    expect(evaluateFindingSla(finding(), DEFAULT_SLA_POLICY, at(5.25)).state).toBe('at_risk');
  });

  it('is breached (overdue) when still open after the due date', () => {
    const sla = evaluateFindingSla(
      finding({ disposition: decided('under_investigation', 1) }),
      DEFAULT_SLA_POLICY,
      at(8),
    );
    expect(sla).toMatchObject({ state: 'breached', elapsedDays: 8, remainingDays: null, closedAt: null });
  });

  it('is met when the final disposition came within the window, however late "now" is', () => {
    const sla = evaluateFindingSla(finding({ disposition: decided('fixed', 6) }), DEFAULT_SLA_POLICY, at(400));
    expect(sla).toMatchObject({ state: 'met', elapsedDays: 6, closedAt: iso(6), final: true });
  });

  it('is met when the decision lands exactly on the due date', () => {
    expect(evaluateFindingSla(finding({ disposition: decided('fixed', 7) }), DEFAULT_SLA_POLICY, at(10)).state).toBe(
      'met',
    );
  });

  it('is breached (closed late) when the final disposition came after the due date', () => {
    const sla = evaluateFindingSla(finding({ disposition: decided('not_affected', 9) }), DEFAULT_SLA_POLICY, at(10));
    expect(sla).toMatchObject({ state: 'breached', closedAt: iso(9), elapsedDays: 9 });
  });

  it('prefers decidedAt over updatedAt as the closing time', () => {
    const disposition = { status: 'fixed' as const, response: null, updatedAt: iso(20), decidedAt: iso(2) };
    expect(evaluateFindingSla(finding({ disposition }), DEFAULT_SLA_POLICY, at(30)).state).toBe('met');
  });

  it('uses the window of the finding severity, and the low window for "none"', () => {
    const policy = DEFAULT_SLA_POLICY;
    expect(evaluateFindingSla(finding({ severity: 'high' }), policy, at(1)).windowDays).toBe(30);
    expect(evaluateFindingSla(finding({ severity: 'medium' }), policy, at(1)).windowDays).toBe(90);
    expect(evaluateFindingSla(finding({ severity: 'low' }), policy, at(1)).windowDays).toBe(180);
    expect(evaluateFindingSla(finding({ severity: 'none' }), policy, at(1)).windowDays).toBe(180);
  });

  it('applies the KEV window when it is shorter than the severity window', () => {
    const sla = evaluateFindingSla(finding({ severity: 'medium', isKev: true }), DEFAULT_SLA_POLICY, at(1));
    expect(sla).toMatchObject({ windowDays: 7, windowSource: 'kev' });
  });

  it('keeps the severity window when it is shorter than the KEV window', () => {
    const policy = resolveSlaPolicy({ critical: 3, kev: 7 });
    expect(evaluateFindingSla(finding({ isKev: true }), policy, at(1))).toMatchObject({
      windowDays: 3,
      windowSource: 'severity',
    });
  });

  it('uses the KEV due date (end of that day, UTC) when it is sooner than the KEV window', () => {
    const sla = evaluateFindingSla(
      finding({ severity: 'high', isKev: true, kevDueDate: '2025-01-04' }),
      DEFAULT_SLA_POLICY,
      at(1),
    );
    expect(sla.windowSource).toBe('kev_due_date');
    expect(sla.dueAt).toBe('2025-01-04T23:59:59.999Z');
  });

  it('ignores a KEV due date that had passed before the finding was detected', () => {
    const sla = evaluateFindingSla(
      finding({ severity: 'high', isKev: true, kevDueDate: '2024-06-01' }),
      DEFAULT_SLA_POLICY,
      at(1),
    );
    expect(sla).toMatchObject({ windowSource: 'kev', state: 'open_within' });
  });

  it('rejects an unparseable detection time', () => {
    expect(() => evaluateFindingSla(finding({ firstDetectedAt: 'yesterday' }), DEFAULT_SLA_POLICY, at(1))).toThrow(
      RangeError,
    );
  });
});

describe('evaluateSla', () => {
  it('counts each outcome and splits breaches into overdue and closed late', () => {
    const findings = [
      finding({ disposition: decided('fixed', 1) }), // met
      finding({ disposition: decided('fixed', 9) }), // breached, closed late
      finding(), // breached, overdue
      finding({ severity: 'high' }), // 20/30 days: open within
      finding({ severity: 'high', firstDetectedAt: iso(-15) }), // 35 days after detection: breached
      finding({ severity: 'medium', firstDetectedAt: iso(-50) }), // 70/90 days: at risk
    ];
    const { results, summary } = evaluateSla(findings, DEFAULT_SLA_POLICY, at(20));
    expect(results.map((r) => r.sla.state)).toEqual([
      'met',
      'breached',
      'breached',
      'open_within',
      'breached',
      'at_risk',
    ]);
    expect(results[0]?.finding).toBe(findings[0]);
    expect(summary).toEqual({
      total: 6,
      met: 1,
      breached: 3,
      breachedOpen: 2,
      breachedClosedLate: 1,
      atRisk: 1,
      openWithin: 1,
    });
  });
});
