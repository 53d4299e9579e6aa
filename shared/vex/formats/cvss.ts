/**
 * CVSS normalisation. The vector is the source of truth: for v2, v3.0 and v3.1 the base
 * score and severity are recomputed from it with the FIRST formulas, because CSAF
 * mandatory test 6.1.9 rejects a baseScore that does not match its vector and all
 * formats should publish the same number. v4 is passed through (no CSAF 2.0 field).
 */
import type { VexCvss } from '../model';

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';
export type CvssSeverity = 'none' | 'low' | 'medium' | 'high' | 'critical';

export interface NormalizedCvss {
  version: CvssVersion;
  /** v3/v4 with `CVSS:x.y/` prefix; v2 without prefix (the FIRST v2 form). */
  vector: string;
  score: number;
  severity: CvssSeverity;
  /** True when the vector parsed and `score` was computed from it (required for CSAF). */
  computed: boolean;
}

type MetricTable = Readonly<Record<string, readonly string[]>>;

const V3_METRICS: MetricTable = {
  AV: ['N', 'A', 'L', 'P'],
  AC: ['L', 'H'],
  PR: ['N', 'L', 'H'],
  UI: ['N', 'R'],
  S: ['U', 'C'],
  C: ['H', 'L', 'N'],
  I: ['H', 'L', 'N'],
  A: ['H', 'L', 'N'],
  E: ['X', 'U', 'P', 'F', 'H'],
  RL: ['X', 'O', 'T', 'W', 'U'],
  RC: ['X', 'U', 'R', 'C'],
  CR: ['X', 'L', 'M', 'H'],
  IR: ['X', 'L', 'M', 'H'],
  AR: ['X', 'L', 'M', 'H'],
  MAV: ['X', 'N', 'A', 'L', 'P'],
  MAC: ['X', 'L', 'H'],
  MPR: ['X', 'N', 'L', 'H'],
  MUI: ['X', 'N', 'R'],
  MS: ['X', 'U', 'C'],
  MC: ['X', 'N', 'L', 'H'],
  MI: ['X', 'N', 'L', 'H'],
  MA: ['X', 'N', 'L', 'H'],
};
const V3_BASE = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'];

const V2_METRICS: MetricTable = {
  AV: ['L', 'A', 'N'],
  AC: ['H', 'M', 'L'],
  Au: ['M', 'S', 'N'],
  C: ['N', 'P', 'C'],
  I: ['N', 'P', 'C'],
  A: ['N', 'P', 'C'],
  E: ['U', 'POC', 'F', 'H', 'ND'],
  RL: ['OF', 'TF', 'W', 'U', 'ND'],
  RC: ['UC', 'UR', 'C', 'ND'],
  CDP: ['N', 'L', 'LM', 'MH', 'H', 'ND'],
  TD: ['N', 'L', 'M', 'H', 'ND'],
  CR: ['L', 'M', 'H', 'ND'],
  IR: ['L', 'M', 'H', 'ND'],
  AR: ['L', 'M', 'H', 'ND'],
};
const V2_BASE = ['AV', 'AC', 'Au', 'C', 'I', 'A'];

/** Metrics of a `K:V/K:V` body, or null when a key is unknown/duplicated, a value invalid or a base metric missing. */
function parseMetrics(body: string, table: MetricTable, base: readonly string[]): Map<string, string> | null {
  const metrics = new Map<string, string>();
  for (const part of body.split('/')) {
    const [key, value, extra] = part.split(':');
    if (key === undefined || value === undefined || extra !== undefined) return null;
    const allowed = table[key];
    if (allowed === undefined || !allowed.includes(value) || metrics.has(key)) return null;
    metrics.set(key, value);
  }
  return base.every((k) => metrics.has(k)) ? metrics : null;
}

function v3Severity(score: number): CvssSeverity {
  if (score === 0) return 'none';
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  if (score < 9) return 'high';
  return 'critical';
}

/** NVD's qualitative ranges for v2 (v2 itself defines none). */
function v2Severity(score: number): CvssSeverity {
  if (score < 4) return 'low';
  if (score < 7) return 'medium';
  return 'high';
}

/** CVSS v3.1 Roundup: integer arithmetic avoids float artefacts (spec Appendix A). */
function roundUp31(x: number): number {
  const i = Math.round(x * 100000);
  return i % 10000 === 0 ? i / 100000 : (Math.floor(i / 10000) + 1) / 10;
}

/** CVSS v3.0 Roundup as in the FIRST 3.0 reference calculator. */
function roundUp30(x: number): number {
  return Math.ceil(x * 10) / 10;
}

function v3BaseScore(m: Map<string, string>, minor: '0' | '1'): number {
  const changed = m.get('S') === 'C';
  const cia: Record<string, number> = { H: 0.56, L: 0.22, N: 0 };
  const av: Record<string, number> = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 };
  const ac: Record<string, number> = { L: 0.77, H: 0.44 };
  const pr: Record<string, number> = changed ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 };
  const ui: Record<string, number> = { N: 0.85, R: 0.62 };
  const w = (table: Record<string, number>, key: string): number => table[m.get(key) ?? ''] ?? 0;
  const iss = 1 - (1 - w(cia, 'C')) * (1 - w(cia, 'I')) * (1 - w(cia, 'A'));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability = 8.22 * w(av, 'AV') * w(ac, 'AC') * w(pr, 'PR') * w(ui, 'UI');
  if (impact <= 0) return 0;
  const roundUp = minor === '1' ? roundUp31 : roundUp30;
  const raw = changed ? 1.08 * (impact + exploitability) : impact + exploitability;
  return roundUp(Math.min(raw, 10));
}

function v2BaseScore(m: Map<string, string>): number {
  const cia: Record<string, number> = { N: 0, P: 0.275, C: 0.66 };
  const av: Record<string, number> = { L: 0.395, A: 0.646, N: 1 };
  const ac: Record<string, number> = { H: 0.35, M: 0.61, L: 0.71 };
  const au: Record<string, number> = { M: 0.45, S: 0.56, N: 0.704 };
  const w = (table: Record<string, number>, key: string): number => table[m.get(key) ?? ''] ?? 0;
  const impact = 10.41 * (1 - (1 - w(cia, 'C')) * (1 - w(cia, 'I')) * (1 - w(cia, 'A')));
  const exploitability = 20 * w(av, 'AV') * w(ac, 'AC') * w(au, 'Au');
  const f = impact === 0 ? 0 : 1.176;
  // toFixed(1) is the rounding of the reference v2 implementations.
  return Number(((0.6 * impact + 0.4 * exploitability - 1.5) * f).toFixed(1));
}

export function normalizeCvssV3(raw: VexCvss): NormalizedCvss {
  const trimmed = raw.vector.trim();
  const vector = /^CVSS:3\.[01]\//.test(trimmed) ? trimmed : `CVSS:3.1/${trimmed}`;
  const minor = vector.charAt(7) === '0' ? '0' : '1';
  const version: CvssVersion = minor === '0' ? '3.0' : '3.1';
  const metrics = parseMetrics(vector.slice('CVSS:3.x/'.length), V3_METRICS, V3_BASE);
  if (metrics === null) {
    return { version, vector: trimmed, score: raw.score, severity: v3Severity(raw.score), computed: false };
  }
  const score = v3BaseScore(metrics, minor);
  return { version, vector, score, severity: v3Severity(score), computed: true };
}

export function normalizeCvssV2(raw: VexCvss): NormalizedCvss {
  const trimmed = raw.vector.trim();
  const vector = trimmed.replace(/^\(/, '').replace(/\)$/, '').replace(/^CVSS:2\.0\//, '');
  const metrics = parseMetrics(vector, V2_METRICS, V2_BASE);
  if (metrics === null) {
    return { version: '2.0', vector: trimmed, score: raw.score, severity: v2Severity(raw.score), computed: false };
  }
  const score = v2BaseScore(metrics);
  return { version: '2.0', vector, score, severity: v2Severity(score), computed: true };
}

/** v4 scoring needs the full MacroVector tables; the stored score is kept as published. */
export function normalizeCvssV4(raw: VexCvss): NormalizedCvss {
  return { version: '4.0', vector: raw.vector.trim(), score: raw.score, severity: v3Severity(raw.score), computed: false };
}
