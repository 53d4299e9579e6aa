/**
 * The CRA page's countdowns (web/src/countdown.ts) on a fixed clock: time left, overdue, met and late once
 * submitted, the final report's clock before a fix, and stages of a closed case.
 */
import { describe, expect, it } from '@jest/globals';
import { deadlineState, formatSpan } from '../../web/src/countdown';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const pending = (due: string | null) => ({ due, submitted_at: null, met: null, late_by_seconds: null });

describe('the CRA countdown', () => {
  it.each([
    [0, '0 s'],
    [999, '0 s'],
    [12 * SECOND, '12 s'],
    [4 * MINUTE + 10 * SECOND, '4 min 10 s'],
    [5 * MINUTE, '5 min'],
    [5 * HOUR + 12 * MINUTE + 59 * SECOND, '5 h 12 min'],
    [3 * HOUR, '3 h'],
    [23 * HOUR + 59 * MINUTE + 59 * SECOND, '23 h 59 min'],
    [51 * HOUR, '2 d 3 h'],
    [14 * 24 * HOUR, '14 d'],
    [-(6 * HOUR + 30 * MINUTE), '6 h 30 min'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatSpan(ms)).toBe(text);
  });

  it('counts down to a deadline ahead, and calls it close under six hours', () => {
    expect(deadlineState(pending(at(24 * HOUR)), NOW)).toEqual({ tone: 'pending', text: 'Due in 1 d' });
    expect(deadlineState(pending(at(6 * HOUR)), NOW)).toEqual({ tone: 'pending', text: 'Due in 6 h' });
    expect(deadlineState(pending(at(6 * HOUR - SECOND)), NOW)).toEqual({ tone: 'soon', text: 'Due in 5 h 59 min' });
    expect(deadlineState(pending(at(90 * SECOND)), NOW)).toEqual({ tone: 'soon', text: 'Due in 1 min 30 s' });
  });

  it('says how long a passed deadline without a submission is overdue, from the moment it passes', () => {
    expect(deadlineState(pending(at(0)), NOW)).toEqual({ tone: 'overdue', text: 'Overdue by 0 s' });
    expect(deadlineState(pending(at(-(6 * HOUR + 5 * MINUTE))), NOW)).toEqual({
      tone: 'overdue',
      text: 'Overdue by 6 h 5 min',
    });
  });

  it('says met or late by how much once submitted, whatever the clock says', () => {
    const due = at(-HOUR);
    expect(deadlineState({ due, submitted_at: at(-2 * HOUR), met: true, late_by_seconds: 0 }, NOW)).toEqual({
      tone: 'met',
      text: 'Met',
    });
    expect(deadlineState({ due, submitted_at: at(0), met: false, late_by_seconds: 3600 }, NOW)).toEqual({
      tone: 'late',
      text: 'Late by 1 h',
    });
    // Without the service's figure, the lateness comes from the two times.
    expect(deadlineState({ due, submitted_at: at(30 * MINUTE), met: null, late_by_seconds: null }, NOW)).toEqual({
      tone: 'late',
      text: 'Late by 1 h 30 min',
    });
  });

  it('does not run the final report clock before a fix, nor the clocks of a closed or dismissed case', () => {
    expect(deadlineState(pending(null), NOW)).toEqual({ tone: 'none', text: 'Starts when a fix is available' });
    expect(deadlineState(pending(at(-HOUR)), NOW, false)).toEqual({ tone: 'none', text: 'Not submitted' });
  });
});
