/**
 * The engine's request type check and attribute value check answer exactly as dynalite's own: the same
 * checked request (members and their order) or the same error, on valid and invalid requests of every
 * operation, and on random attribute values.
 */
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { checkTypes, validateAttributeValue, validationView } from '../../shared/local/embedded-dynalite-types';

const require = createRequire(import.meta.url);
type Data = Record<string, unknown>;
const dynalite = require('dynalite/validations') as {
  checkTypes(data: Data, types: Data): Data;
  checkValidations(data: Data, types: Data, custom: unknown, store: unknown): void;
};
// dynalite's own: this test does not load the engine, which replaces the export.
const dynaliteValidateAttributeValue = (
  require('dynalite/validations') as { validateAttributeValue: (value: Data) => string | undefined }
).validateAttributeValue;

const OPERATIONS = ['batchWriteItem', 'putItem', 'updateItem', 'deleteItem', 'getItem', 'query', 'batchGetItem'];
const typesOf = (operation: string) => (require(`dynalite/validations/${operation}`) as { types: Data }).types;

/** Same answer: JSON of the result (member order included), or the error's status and body. */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() });
  } catch (error) {
    const { statusCode, body, message } = error as { statusCode?: number; body?: unknown; message?: string };
    return JSON.stringify({ statusCode, body, message: statusCode === undefined ? message : undefined });
  }
}

/** The requests whose answer differs from dynalite's (none expected), with both answers. */
function differences(types: Data, requests: unknown[]): { request: unknown; ours: string; theirs: string }[] {
  return requests.flatMap((request) => {
    const ours = outcome(() => checkTypes(structuredClone(request) as Data, types));
    const theirs = outcome(() => dynalite.checkTypes(structuredClone(request) as Data, types));
    return ours === theirs ? [] : [{ request, ours, theirs }];
  });
}

/** A small deterministic generator (no flaky fuzzing). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SCALARS: unknown[] = [
  'x',
  '',
  '12',
  '-0',
  '0.50',
  'yes',
  'dGVzdA==',
  'abc',
  5,
  1.5,
  0,
  true,
  false,
  null,
  [],
  {},
];
const MEMBERS = ['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M', 'X', '__proto__'];

function attributeValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (roll < 0.08) return SCALARS[Math.floor(next() * SCALARS.length)];
  const members = roll < 0.85 ? 1 : roll < 0.93 ? 2 : 0;
  const value: Data = {};
  for (let index = 0; index < members; index += 1) {
    const member = MEMBERS[Math.floor(next() * MEMBERS.length)]!;
    const inner =
      member === 'L' || member === 'SS' || member === 'NS' || member === 'BS'
        ? depth > 2 || next() < 0.1
          ? SCALARS[Math.floor(next() * SCALARS.length)]
          : Array.from({ length: Math.floor(next() * 3) }, () =>
              member === 'L' ? attributeValue(next, depth + 1) : SCALARS[Math.floor(next() * 10)],
            )
        : member === 'M'
          ? depth > 2 || next() < 0.1
            ? SCALARS[Math.floor(next() * SCALARS.length)]
            : Object.fromEntries(
                Array.from({ length: Math.floor(next() * 3) }, (_, i) => [`a${i}`, attributeValue(next, depth + 1)]),
              )
          : SCALARS[Math.floor(next() * SCALARS.length)];
    Object.defineProperty(value, member, { value: inner, enumerable: true, writable: true, configurable: true });
  }
  return value;
}

describe("embedded engine's dynalite type check", () => {
  it('answers valid requests of every operation as dynalite does', () => {
    const item = {
      pk: { S: 'TEAM#1' },
      sk: { S: 'META' },
      n: { N: '-12.50' },
      b: { B: 'dGVzdA==' },
      t: { BOOL: true },
      z: { NULL: true },
      ss: { SS: ['a', 'b'] },
      ns: { NS: ['1', '2'] },
      l: { L: [{ S: 'a' }, { M: { x: { N: '1' } } }, null] },
      m: { M: { a: { L: [] }, b: null } },
    };
    const requests: Record<string, unknown[]> = {
      batchWriteItem: [
        { RequestItems: { t1: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: { pk: { S: 'a' } } } }] } },
        { RequestItems: { t1: [{ PutRequest: { Item: item }, Extra: 1 }] }, ReturnConsumedCapacity: 'TOTAL' },
      ],
      putItem: [
        { TableName: 't1', Item: item, ConditionExpression: 'attribute_not_exists(pk)', Unknown: 1 },
        { TableName: 't1', Item: item, Expected: { a: { Exists: 'yes', Value: { S: 'x' } } } },
      ],
      updateItem: [
        {
          TableName: 't1',
          Key: { pk: { S: 'a' } },
          UpdateExpression: 'SET #a = :v',
          ExpressionAttributeNames: { '#a': 'a' },
          ExpressionAttributeValues: { ':v': { N: '1' } },
        },
      ],
      deleteItem: [{ TableName: 't1', Key: { pk: { S: 'a' } }, ReturnValues: 'ALL_OLD' }],
      getItem: [{ TableName: 't1', Key: { pk: { S: 'a' } }, ConsistentRead: 'true', AttributesToGet: ['a'] }],
      query: [{ TableName: 't1', Limit: 2.7, KeyConditions: { pk: { AttributeValueList: [{ S: 'a' }] } } }],
      batchGetItem: [{ RequestItems: { t1: { Keys: [{ pk: { S: 'a' } }], ConsistentRead: 1 } } }],
    };
    for (const operation of OPERATIONS) expect(differences(typesOf(operation), requests[operation] ?? [])).toEqual([]);
  });

  it('answers malformed requests with dynalite’s errors', () => {
    const malformed: [string, unknown][] = [
      ['putItem', { TableName: 5, Item: {} }],
      ['putItem', { TableName: 't1', Item: [] }],
      ['putItem', { TableName: 't1', Item: { a: 'x' } }],
      ['putItem', { TableName: 't1', Item: { a: [] } }],
      ['putItem', { TableName: 't1', Item: { a: { S: 5 } } }],
      ['putItem', { TableName: 't1', Item: { a: { S: ['x'] } } }],
      ['putItem', { TableName: 't1', Item: { a: { B: 'abc' } } }],
      ['putItem', { TableName: 't1', Item: { a: { BOOL: 'maybe' } } }],
      ['putItem', { TableName: 't1', Item: { a: { L: {} } } }],
      ['putItem', { TableName: 't1', Item: { a: { M: [] } } }],
      ['putItem', { TableName: 't1', Item: { a: { M: { b: 'x' } } } }],
      ['batchWriteItem', { RequestItems: [] }],
      ['batchWriteItem', { RequestItems: { t1: {} } }],
      ['batchWriteItem', { RequestItems: { t1: ['x'] } }],
      ['batchWriteItem', { RequestItems: { t1: [{ PutRequest: true }] } }],
      ['query', { TableName: 't1', Limit: 'ten' }],
      ['query', { TableName: 't1', Limit: true }],
      ['getItem', { TableName: 't1', ConsistentRead: 2 }],
    ];
    for (const [operation, request] of malformed) expect(differences(typesOf(operation), [request])).toEqual([]);
  });

  it('answers random attribute values as dynalite does', () => {
    const next = random(7);
    const types = typesOf('putItem');
    const requests = Array.from({ length: 3000 }, () => ({
      TableName: 't1',
      Item: { a: attributeValue(next, 0), b: attributeValue(next, 0) },
    }));
    expect(differences(types, requests)).toEqual([]);
  });

  it('checks attribute values and normalises numbers as dynalite does', () => {
    const next = random(11);
    const numbers = ['0', '-0', '1', '-1', '10', '007', '1.0', '0.5', '-0.50', '.5', '5.', '1e3', '1E-3', 'abc', ''];
    for (let index = 0; index < 500; index += 1) {
      const digits = Array.from({ length: 1 + Math.floor(next() * 45) }, () => Math.floor(next() * 10)).join('');
      const point = Math.floor(next() * (digits.length + 1));
      numbers.push(
        `${next() < 0.3 ? '-' : ''}${digits.slice(0, point)}${next() < 0.5 ? '.' : ''}${digits.slice(point)}`,
      );
    }
    const values: Data[] = numbers.flatMap((N) => [
      { N },
      { L: [{ S: 'x' }, { N }] },
      { M: { a: { N }, b: { BOOL: true } } },
    ]);
    const typed = checkTypes({ TableName: 't1', Item: {} }, typesOf('putItem'));
    expect(typed).toEqual({ TableName: 't1', Item: {} });
    for (let index = 0; index < 1000; index += 1) {
      const value = attributeValue(next, 0);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        try {
          values.push(dynalite.checkTypes({ a: value }, { a: { type: 'AttrStruct<ValueStruct>' } }).a as Data);
        } catch {
          // Not a value checkTypes lets through: validateAttributeValue never sees it.
        }
      }
    }
    for (const value of values) {
      const ours = structuredClone(value);
      const theirs = structuredClone(value);
      expect(outcome(() => validateAttributeValue(ours))).toBe(outcome(() => dynaliteValidateAttributeValue(theirs)));
      expect(ours).toEqual(theirs);
    }
  });

  it('validates with the lighter type description as with the full one', () => {
    const item = (index: number) => ({ pk: { S: `p${index}` }, sk: { S: 's' }, m: { M: { a: { L: [{ S: 'x' }] } } } });
    const requests: [string, Data][] = [
      ['batchWriteItem', { RequestItems: { t1: [{ PutRequest: { Item: item(1) } }] } }],
      [
        'batchWriteItem',
        { RequestItems: { t1: Array.from({ length: 26 }, (_, i) => ({ PutRequest: { Item: item(i) } })) } },
      ],
      [
        'batchWriteItem',
        { RequestItems: { 'bad name!': [{ DeleteRequest: { Key: item(1) } }] }, ReturnConsumedCapacity: 'ALL' },
      ],
      ['batchWriteItem', { RequestItems: { t1: [{ PutRequest: {} }] } }],
      ['putItem', { TableName: 't', Item: item(1), ReturnValues: 'EVERYTHING' }],
      ['putItem', { TableName: 't1', Item: item(1), ConditionExpression: 'attribute_not_exists(pk)' }],
      ['updateItem', { TableName: 't1', Key: item(1), UpdateExpression: 'SET a = :a', ExpressionAttributeValues: {} }],
      ['query', { TableName: 't1', Limit: 0, Select: 'SOME', ExclusiveStartKey: item(2) }],
      ['batchGetItem', { RequestItems: { t1: { Keys: [] } } }],
    ];
    const store = { options: { maxItemSize: 400 * 1024 } };
    for (const [operation, request] of requests) {
      const { types, custom } = require(`dynalite/validations/${operation}`) as { types: Data; custom?: unknown };
      const answer = (description: Data) =>
        outcome(() =>
          dynalite.checkValidations(dynalite.checkTypes(structuredClone(request), types), description, custom, store),
        );
      expect(answer(validationView(types))).toBe(answer(types));
    }
    expect(validationView(typesOf('putItem')).Item).toEqual({ type: 'Map<AttributeValue>', notNull: true });
  });
});
