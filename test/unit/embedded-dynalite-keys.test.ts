/**
 * The engine's LevelDB keys of items and index entries are dynalite's own, for string-keyed tables (its own
 * functions computed) and for the others (dynalite's functions used).
 */
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { createKey, getIndexActions } from '../../shared/local/embedded-dynalite-keys';

const require = createRequire(import.meta.url);
type Item = Record<string, Record<string, unknown>>;
// dynalite's own: this test does not load the engine, which replaces the exports.
const dynalite = require('dynalite/db') as {
  createKey: typeof createKey;
  getIndexActions: typeof getIndexActions;
};

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const STRINGS = ['', 'a', 'TEAM#1#ADVISORY#GHSA-xxxx', 'é ü 漢字', 'x'.repeat(300), 'META', '0'];

function table(numberRange: boolean, projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE') {
  return {
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: numberRange ? 'N' : 'S' },
      { AttributeName: 'g1', AttributeType: 'S' },
      { AttributeName: 'g1s', AttributeType: 'S' },
      { AttributeName: 'g2', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'gsi1',
        KeySchema: [
          { AttributeName: 'g1', KeyType: 'HASH' },
          { AttributeName: 'g1s', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: projection, ...(projection === 'INCLUDE' ? { NonKeyAttributes: ['v'] } : {}) },
      },
      {
        IndexName: 'gsi2',
        KeySchema: [{ AttributeName: 'g2', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

function item(next: () => number, numberRange: boolean): Item {
  const pick = () => STRINGS[Math.floor(next() * STRINGS.length)]!;
  const made: Item = {
    pk: { S: `${pick()}${Math.floor(next() * 1000)}` },
    sk: numberRange ? { N: String(Math.floor(next() * 2000) - 1000) } : { S: pick() },
    v: { S: pick() },
  };
  if (next() < 0.7) made.g1 = { S: pick() };
  if (next() < 0.7) made.g1s = { S: pick() };
  if (next() < 0.5) made.g2 = { S: pick() };
  return made;
}

describe("embedded engine's LevelDB keys", () => {
  it('are the keys dynalite makes, for items, index entries and replaced items', () => {
    const next = random(3);
    const differences: unknown[] = [];
    for (const numberRange of [false, true])
      for (const projection of ['ALL', 'KEYS_ONLY', 'INCLUDE'] as const) {
        const shape = table(numberRange, projection);
        for (let round = 0; round < 300; round += 1) {
          const written = item(next, numberRange);
          const existing = next() < 0.5 ? undefined : next() < 0.3 ? structuredClone(written) : item(next, numberRange);
          const ours = [
            createKey(written, shape),
            getIndexActions(shape.GlobalSecondaryIndexes, existing, written, shape),
            getIndexActions(shape.GlobalSecondaryIndexes, existing, undefined, shape),
          ];
          const theirs = [
            dynalite.createKey(written, shape),
            dynalite.getIndexActions(shape.GlobalSecondaryIndexes, existing, written, shape),
            dynalite.getIndexActions(shape.GlobalSecondaryIndexes, existing, undefined, shape),
          ];
          if (JSON.stringify(ours) !== JSON.stringify(theirs)) differences.push({ written, existing, ours, theirs });
        }
      }
    expect(differences).toEqual([]);
  });

  it('fails as dynalite does on a key value of the wrong type', () => {
    const shape = table(false, 'ALL');
    const wrong = { pk: { N: '1' }, sk: { S: 'a' } };
    const failure = (make: typeof createKey) => {
      try {
        return make(wrong, shape);
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(failure(createKey)).toMatch(/must be of type string/);
    expect(failure(createKey)).toBe(failure(dynalite.createKey));
  });
});
