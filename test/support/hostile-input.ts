/**
 * Hostile input (docs/hostile-input.md): every parser and every regular expression that sees
 * user input answers within a time bound per input. One catastrophic regex held the event loop
 * for 22 s on a 37-character SBOM version, so each target gets adversarial inputs (long runs of
 * what its quantifiers accept, then a character that forces failure) and a seeded random fuzz,
 * each call timed on its own. The test/unit/hostile-input-*.test.ts files apply these to each target.
 */
import { expect } from '@jest/globals';

// ---------------------------------------------------------------------------------------------
// Timing

/**
 * Two bounds. Up to a few thousand characters (beyond every limit that applies: versions are
 * matched up to 256 characters, request fields are capped at 5,000), 50 ms per call, where a
 * version or purl parses in microseconds; an exponential regex needs seconds on 40 characters.
 * At 100,000 characters, where only linear cost is acceptable, a call may take at most 50 ms plus
 * 50 times the same input cut to 10,000 characters: linear code takes 10 to 30 times as long
 * (more garbage to collect), quadratic code 100 times.
 */
export const BOUND_MS = 50;
const GROWTH = 50;

/** An input, and for a long one the same input a tenth as long. */
export type Probe = { input: string; tenth?: string };

/**
 * Milliseconds of one call: wall-clock time (process.hrtime), or with `cpu` the lesser of it and this
 * process's CPU time, which leaves out the time other processes on a shared machine held the core
 * (the wall time leaves out the garbage collector's parallel threads).
 */
function timeOnce(run: (input: string) => unknown, input: string, cpu: boolean): number {
  const cpuBefore = cpu ? process.cpuUsage() : undefined;
  const started = process.hrtime.bigint();
  try {
    run(input);
  } catch {
    // Rejecting an input is an answer; only the time it took matters here.
  }
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (!cpuBefore) return wallMs;
  const { user, system } = process.cpuUsage(cpuBefore);
  return Math.min(wallMs, (user + system) / 1000);
}

/**
 * Wall-clock time first: nearly every input is far within its bound, and reading the CPU time is a
 * system call per read (on a virtual machine as costly as many a parse). Over the bound, measured twice
 * more with the CPU time too and the fastest kept: a GC pause or a busy core is not the parser. A
 * hundred times over (5 s at the 50-ms bound) is no noise, and not worth waiting for again; a full
 * collection of a large heap on a loaded machine did hold one 20-character input for 1.2 s.
 */
export function timed(run: (input: string) => unknown, input: string, boundMs: number): number {
  let best = timeOnce(run, input, false);
  for (let retry = 0; retry < 2 && best > boundMs && best < 100 * boundMs; retry++)
    best = Math.min(best, timeOnce(run, input, true));
  return best;
}

/** A long input as `"head"… (N chars) …"tail"`, so a failure names the input without printing megabytes. */
function preview(input: string): string {
  return input.length <= 80
    ? JSON.stringify(input)
    : `${JSON.stringify(input.slice(0, 40))}… (${input.length} chars) …${JSON.stringify(input.slice(-20))}`;
}

type Slow = { input: string; ms: number; boundMs: number };

/** Runs every input; fails listing the inputs over their bound, slowest first (the slowest input leads the message). */
export function expectAllWithinBound(
  target: string,
  run: (input: string) => unknown,
  probes: Iterable<string | Probe>,
): void {
  const slow: Slow[] = [];
  for (const probe of probes) {
    const { input, tenth } = typeof probe === 'string' ? { input: probe, tenth: undefined } : probe;
    const boundMs = tenth === undefined ? BOUND_MS : BOUND_MS + GROWTH * timed(run, tenth, BOUND_MS);
    const ms = timed(run, input, boundMs);
    if (ms > boundMs) slow.push({ input: preview(input), ms: Math.round(ms), boundMs: Math.round(boundMs) });
  }
  slow.sort((a, b) => b.ms - a.ms);
  expect({ target, slowest: slow.slice(0, 5), over: slow.length }).toEqual({ target, slowest: [], over: 0 });
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** Characters that make a match fail after a long accepted run: punctuation, whitespace, NUL, a lone surrogate. */
const FAILING_SUFFIXES = ['!', ' ', '\n', '\u0000', '\uD800', ''];
const LONG = 100_000;
/** At 100,000 characters one failing suffix per token: the cost is quadratic growth, which any suffix shows; the 10- and 1,000-character runs try them all. */
const LONG_SUFFIXES = ['!'];

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.max(1, Math.ceil(length / unit.length))).slice(0, Math.max(length, unit.length));
}

/**
 * Long repetitions of each token and of each pair of tokens (a digit run, a digit and a
 * separator...), after each prefix that steers a parser into the branch under attack, then
 * a failing character. Only single tokens and one suffix go to 100,000 characters, where
 * each call costs most.
 */
export function* adversarial(tokens: readonly string[], prefixes: readonly string[] = ['']): Generator<string | Probe> {
  for (const prefix of prefixes) {
    for (const token of tokens) {
      for (const length of [10, 1000])
        for (const suffix of FAILING_SUFFIXES) yield prefix + repeatTo(token, length) + suffix;
      for (const suffix of LONG_SUFFIXES)
        yield { input: prefix + repeatTo(token, LONG) + suffix, tenth: prefix + repeatTo(token, LONG / 10) + suffix };
    }
    for (const first of tokens) {
      for (const second of tokens) {
        if (first === second) continue;
        for (const length of [10, 1000])
          for (const suffix of ['!', '\n']) yield prefix + repeatTo(first + second, length) + suffix;
      }
    }
  }
}

/** mulberry32: a fixed seed makes every run fuzz the same strings, so a failure reproduces. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOISE = [
  'a',
  'Z',
  '0',
  '9',
  '.',
  '-',
  '_',
  '+',
  '~',
  ':',
  '/',
  '@',
  '%',
  '?',
  '#',
  '=',
  '&',
  '*',
  '\\',
  ' ',
  '\t',
  '\n',
  '"',
  "'",
  'é',
  '\u00a0',
  '\uD800',
  '\uDC00',
  '\u2028',
  '😀',
];

/** A few thousand strings of up to 300 characters (beyond any real version or purl) from the target's tokens and some noise. */
export function* randomFuzz(tokens: readonly string[], seed: number, count = 2000): Generator<string> {
  const random = seededRandom(seed);
  const pool = [...tokens, ...tokens, ...NOISE];
  for (let i = 0; i < count; i++) {
    let out = '';
    const length = Math.floor(random() * random() * 300);
    while (out.length < length) out += pool[Math.floor(random() * pool.length)] ?? '';
    yield out;
  }
}

/** Adversarial inputs, then the seeded random fuzz. */
export function* hostile(
  tokens: readonly string[],
  prefixes: readonly string[],
  seed: number,
): Generator<string | Probe> {
  yield* adversarial(tokens, prefixes);
  yield* randomFuzz(tokens, seed);
}

/** Digits and the separators every version scheme knows. */
export const DIGITS_AND_SEPARATORS = ['1', '0', '.', '-'];
