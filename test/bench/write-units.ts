/**
 * What a run's writes would cost in DynamoDB on-demand mode (docs/corpus-at-scale.md "Cost model"): each item
 * written costs one write request unit per started kilobyte of its size, sized by DynamoDB's rules ("Item sizes
 * and formats" in the DynamoDB developer guide). The meter sees the items this process writes through
 * `observeWrites` (shared/service/data/table-client.ts): puts, batch puts, transactions' puts and updates' new
 * items. Deletes are not observed; an import deletes only withdrawn records' items.
 */
import type { Item } from '../../shared/service/data/table-client';

/** us-east-1 on-demand price per million write request units (2026). */
export const USD_PER_MILLION_WRITE_UNITS = 0.625;

/** Size of an attribute value by DynamoDB's rules; the attribute's name is counted by its container. */
export function attributeValueBytes(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    // One byte per two significant digits, plus one; leading and trailing zeros do not count.
    const digits = String(value)
      .replace(/^-/, '')
      .replace(/e.*$/i, '')
      .replace('.', '')
      .replace(/^0+/, '')
      .replace(/0+$/, '');
    return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set)
    return [...(value as Set<unknown>)].reduce<number>((sum, each) => sum + attributeValueBytes(each), 0);
  // A list or map: 3 bytes, and 1 byte per element beside the element's own size (and its name, in a map).
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, each) => sum + 1 + attributeValueBytes(each), 0);
  if (typeof value === 'object') return 3 + mapBytes(value as Record<string, unknown>, 1);
  return 0;
}

function mapBytes(map: Record<string, unknown>, perEntry: number): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(map)) {
    if (value === undefined) continue;
    bytes += perEntry + Buffer.byteLength(name, 'utf8') + attributeValueBytes(value);
  }
  return bytes;
}

/** An item's size: the names and values of its attributes. */
export function itemBytes(item: Item): number {
  return mapBytes(item, 0);
}

export interface WriteSummary {
  items: number;
  bytes: number;
  writeUnits: number;
  usd: number;
  /** Write units per item kind (the items' `entity`), most first. */
  byEntity: Record<string, number>;
}

export class WriteUnitMeter {
  items = 0;
  bytes = 0;
  writeUnits = 0;
  private readonly unitsByEntity = new Map<string, number>();

  observe(items: readonly Item[]): void {
    for (const item of items) {
      const bytes = itemBytes(item);
      const units = Math.max(1, Math.ceil(bytes / 1024));
      const entity = typeof item.entity === 'string' ? item.entity : 'other';
      this.items += 1;
      this.bytes += bytes;
      this.writeUnits += units;
      this.unitsByEntity.set(entity, (this.unitsByEntity.get(entity) ?? 0) + units);
    }
  }

  summary(): WriteSummary {
    return {
      items: this.items,
      bytes: this.bytes,
      writeUnits: this.writeUnits,
      usd: (this.writeUnits / 1e6) * USD_PER_MILLION_WRITE_UNITS,
      byEntity: Object.fromEntries([...this.unitsByEntity].sort((a, b) => b[1] - a[1])),
    };
  }
}
