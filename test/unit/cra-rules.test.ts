/** The CRA Article 14 rules on fixed clocks: on-market, awareness, deadlines, timeliness, status order, signals. */
import { describe, expect, it } from '@jest/globals';
import {
  awareAtOf,
  deadlinesOf,
  dueSignals,
  isOnMarket,
  nextDeadline,
  nextStage,
  submissionRefusal,
  timelinessOf,
} from '../../shared/service/cra/rules';

const NOW = '2026-10-01T12:00:00.000Z';
const AWARE = '2026-10-01T08:30:00.000Z';
const HOUR = 60 * 60 * 1000;
const at = (iso: string, deltaMs: number) => new Date(Date.parse(iso) + deltaMs).toISOString();

describe('on the market', () => {
  const inScope = { craInScope: true };
  it('needs the product in scope, an active or deprecated release, and its date passed (or none)', () => {
    expect(isOnMarket(inScope, { status: 'active', releaseDate: '2026-09-30' }, NOW)).toBe(true);
    expect(isOnMarket(inScope, { status: 'deprecated', releaseDate: null }, NOW)).toBe(true);
    expect(isOnMarket({ craInScope: false }, { status: 'active', releaseDate: '2026-09-30' }, NOW)).toBe(false);
    expect(isOnMarket(inScope, { status: 'end-of-life', releaseDate: '2026-09-30' }, NOW)).toBe(false);
    expect(isOnMarket(inScope, { status: 'active', releaseDate: '2026-10-02' }, NOW)).toBe(false);
    expect(isOnMarket(inScope, { status: 'active', releaseDate: NOW }, NOW)).toBe(true);
  });
});

describe('awareness and deadlines', () => {
  it('is the later of detection and exploitation', () => {
    expect(awareAtOf('2026-09-01T00:00:00.000Z', AWARE)).toBe(AWARE);
    expect(awareAtOf(AWARE, '2026-09-01T00:00:00.000Z')).toBe(AWARE);
  });

  it('is no earlier than the release being on the market: the product put in scope, the release date', () => {
    const detected = '2026-09-01T00:00:00.000Z';
    const listed = '2026-09-02T00:00:00.000Z';
    expect(awareAtOf(detected, listed, AWARE, null)).toBe(AWARE);
    expect(awareAtOf(detected, listed, '2026-10-15')).toBe('2026-10-15T00:00:00.000Z');
    expect(awareAtOf(detected, listed, null, '2026-01-15')).toBe(listed);
  });

  it('gives 24 h, 72 h, and 14 days after a fix', () => {
    expect(deadlinesOf(AWARE, null)).toEqual({
      early_warning: '2026-10-02T08:30:00.000Z',
      notification: '2026-10-04T08:30:00.000Z',
      final_report: null,
    });
    expect(deadlinesOf(AWARE, '2026-10-10T00:00:00.000Z').final_report).toBe('2026-10-24T00:00:00.000Z');
  });

  it('orders cases by the deadline of the stage owed next', () => {
    const deadlines = deadlinesOf(AWARE, null);
    expect(nextDeadline('open', deadlines)).toBe(deadlines.early_warning);
    expect(nextDeadline('early_warning_sent', deadlines)).toBe(deadlines.notification);
    expect(nextDeadline('notified', deadlines)).toBeNull();
    expect(nextDeadline('closed', deadlines)).toBeNull();
  });
});

describe('timeliness', () => {
  const due = '2026-10-02T08:30:00.000Z';
  it('is met on or before the deadline', () => {
    expect(timelinessOf(due, due, NOW)).toMatchObject({ met: true, late_by_seconds: 0 });
  });
  it('says how late', () => {
    expect(timelinessOf(due, at(due, 90 * 60 * 1000), NOW)).toMatchObject({ met: false, late_by_seconds: 5400 });
  });
  it('is overdue only without a submission past the deadline', () => {
    expect(timelinessOf(due, null, at(due, 1000))).toMatchObject({ met: null, overdue: true });
    expect(timelinessOf(due, null, at(due, -1000))).toMatchObject({ overdue: false });
    expect(timelinessOf(null, null, NOW)).toMatchObject({ overdue: false });
  });
});

describe('status order', () => {
  it('moves through the stages in order', () => {
    expect(nextStage('open')).toBe('early_warning');
    expect(nextStage('early_warning_sent')).toBe('notification');
    expect(nextStage('notified')).toBe('final_report');
    expect(nextStage('final_report_sent')).toBeNull();
  });

  it('refuses a stage out of order, a time in the future or before awareness, and a case no longer live', () => {
    expect(submissionRefusal('open', 'early_warning', AWARE, NOW, NOW)).toBeNull();
    expect(submissionRefusal('open', 'notification', AWARE, NOW, NOW)).toBe('the early_warning comes first');
    expect(submissionRefusal('notified', 'early_warning', AWARE, NOW, NOW)).toBe(
      'the early_warning was already recorded',
    );
    expect(submissionRefusal('open', 'early_warning', AWARE, at(NOW, 1000), NOW)).toBe('submitted_at is in the future');
    expect(submissionRefusal('open', 'early_warning', AWARE, at(AWARE, -1000), NOW)).toBe(
      'submitted_at is before aware_at',
    );
    expect(submissionRefusal('dismissed', 'early_warning', AWARE, NOW, NOW)).toBe('the case is dismissed');
  });
});

describe('deadline signals', () => {
  const deadlines = deadlinesOf(AWARE, null);
  const due = deadlines.early_warning;
  it('signals 6 h and 1 h before and the miss, each once', () => {
    expect(dueSignals('open', deadlines, new Set(), at(due, -7 * HOUR))).toEqual([]);
    expect(dueSignals('open', deadlines, new Set(), at(due, -5 * HOUR))).toEqual([
      { stage: 'early_warning', kind: 'approaching', label: '6h', due },
    ]);
    expect(dueSignals('open', deadlines, new Set(['early_warning:6h']), at(due, -5 * HOUR))).toEqual([]);
    expect(dueSignals('open', deadlines, new Set(['early_warning:6h']), at(due, -30 * 60 * 1000))).toEqual([
      { stage: 'early_warning', kind: 'approaching', label: '1h', due },
    ]);
    expect(dueSignals('open', deadlines, new Set(['early_warning:6h']), due)).toEqual([
      { stage: 'early_warning', kind: 'missed', label: 'missed', due },
    ]);
    expect(dueSignals('open', deadlines, new Set(['early_warning:missed']), at(due, HOUR))).toEqual([]);
  });

  it('follows the stage owed, and says nothing without a running deadline', () => {
    const notificationDue = deadlines.notification;
    expect(
      dueSignals('early_warning_sent', deadlines, new Set(['early_warning:missed']), at(notificationDue, -HOUR / 2)),
    ).toEqual([{ stage: 'notification', kind: 'approaching', label: '1h', due: notificationDue }]);
    expect(dueSignals('notified', deadlines, new Set(), at(NOW, 30 * 24 * HOUR))).toEqual([]);
    expect(dueSignals('dismissed', deadlines, new Set(), at(due, HOUR))).toEqual([]);
  });
});
