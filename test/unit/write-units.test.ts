/** The bench's DynamoDB write-unit model (test/bench/write-units.ts), on items sized by hand with DynamoDB's rules. */
import { describe, expect, it } from '@jest/globals';
import { attributeValueBytes, itemBytes, WriteUnitMeter } from '../bench/write-units';

describe('DynamoDB item sizes and write units', () => {
  it('sizes scalars: UTF-8 bytes of strings, two significant digits a byte for numbers, one byte for null and booleans', () => {
    expect(attributeValueBytes('abc')).toBe(3);
    expect(attributeValueBytes('é€')).toBe(5);
    expect(attributeValueBytes(12345)).toBe(4); // 3 bytes of digits + 1
    expect(attributeValueBytes(1200)).toBe(2); // trailing zeros trimmed: "12"
    expect(attributeValueBytes(0.05)).toBe(2); // leading zeros trimmed: "5"
    expect(attributeValueBytes(true)).toBe(1);
    expect(attributeValueBytes(null)).toBe(1);
    expect(attributeValueBytes(new Uint8Array(7))).toBe(7);
  });

  it('sizes lists and maps with 3 bytes each and 1 byte per element, names included for maps', () => {
    expect(attributeValueBytes([])).toBe(3);
    expect(attributeValueBytes(['ab', 'c'])).toBe(3 + (1 + 2) + (1 + 1));
    expect(attributeValueBytes({ k: 'v', no: undefined })).toBe(3 + (1 + 1 + 1));
    expect(itemBytes({ pk: 'TEAM#1', sk: 'A', n: 7 })).toBe(2 + 6 + 2 + 1 + 1 + 2);
  });

  it('charges a write unit per started kilobyte of each item', () => {
    const meter = new WriteUnitMeter();
    meter.observe([{ pk: 'x' }, { pk: 'y'.repeat(1022) }, { pk: 'z'.repeat(1023) }, { pk: 'w'.repeat(5000) }]);
    meter.observe([{ pk: 'p', entity: 'CorpusPackage', entries: 'e'.repeat(3000) }]);
    expect(meter.summary()).toMatchObject({
      items: 5,
      writeUnits: 1 + 1 + 2 + 5 + 3,
      byEntity: { other: 9, CorpusPackage: 3 },
    });
  });
});
