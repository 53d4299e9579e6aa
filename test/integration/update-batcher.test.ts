/**
 * Conditional updates gathered into one transaction (shared/service/data/update-batcher.ts): each caller learns
 * whether its own condition held, and one failed condition does not keep the others of its batch from being written.
 */
import { describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { getItem, putItem } from '../../shared/service/data/table-client';
import { UpdateBatcher, type ConditionalUpdate } from '../../shared/service/data/update-batcher';

const bump = (pk: string, from: number): ConditionalUpdate => ({
  key: { pk, sk: 'COUNTER' },
  update: 'SET #count = :next',
  names: { '#count': 'count' },
  values: { ':next': from + 1, ':from': from },
  condition: '#count = :from',
});

describe('UpdateBatcher', () => {
  test('writes every update whose condition holds, reports the one that does not', async () => {
    const pks = [0, 1, 2].map(() => `TEAM#${randomUUID()}#BATCHER`);
    for (const pk of pks) await putItem({ pk, sk: 'COUNTER', count: 0 });
    const batcher = new UpdateBatcher();
    const results = Promise.all([
      batcher.update(bump(pks[0]!, 0)),
      batcher.update(bump(pks[1]!, 5)),
      batcher.update(bump(pks[2]!, 0)),
    ]);
    await batcher.drain();
    expect(await results).toEqual([true, false, true]);
    const counts = await Promise.all(pks.map(async (pk) => (await getItem({ pk, sk: 'COUNTER' }))?.count));
    expect(counts).toEqual([1, 0, 1]);
  });

  test('two updates of one item in a batch are made one after the other', async () => {
    const pk = `TEAM#${randomUUID()}#BATCHER`;
    const other = `TEAM#${randomUUID()}#BATCHER`;
    for (const key of [pk, other]) await putItem({ pk: key, sk: 'COUNTER', count: 0 });
    const batcher = new UpdateBatcher();
    const results = Promise.all([
      batcher.update(bump(pk, 0)),
      batcher.update(bump(other, 0)),
      batcher.update(bump(pk, 0)),
    ]);
    await batcher.drain();
    expect(await results).toEqual([true, true, false]);
    expect((await getItem({ pk, sk: 'COUNTER' }))?.count).toBe(1);
    expect((await getItem({ pk: other, sk: 'COUNTER' }))?.count).toBe(1);
  });
});
