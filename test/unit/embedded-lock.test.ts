/**
 * The embedded engines' readers-writer lock: readers together, single-item writers together
 * (`writers`), an exclusive holder alone, and strict arrival order between the groups.
 */
import { describe, expect, it } from '@jest/globals';
import { ReadWriteLock, type Release } from '../../shared/local/embedded-lock';

/** Acquires in order and records which acquisitions have been granted so far. */
function tracker(lock: ReadWriteLock) {
  const granted: string[] = [];
  const releases = new Map<string, Release>();
  const take = (name: string, mode: 'shared' | 'writers' | 'exclusive') => {
    void lock[mode]().then((release) => {
      granted.push(name);
      releases.set(name, release);
    });
  };
  const settle = () => new Promise((done) => setImmediate(done));
  const release = async (name: string) => {
    releases.get(name)?.();
    await settle();
  };
  return { granted, take, settle, release };
}

describe('ReadWriteLock', () => {
  it('runs writers together, but never beside a reader or an exclusive holder', async () => {
    const lock = new ReadWriteLock();
    const { granted, take, settle, release } = tracker(lock);
    take('w1', 'writers');
    take('w2', 'writers');
    take('r1', 'shared');
    take('w3', 'writers');
    await settle();
    expect(granted).toEqual(['w1', 'w2']);
    await release('w1');
    expect(granted).toEqual(['w1', 'w2']);
    await release('w2');
    // Arrival order: the reader that came before w3 goes first, alone among the writers.
    expect(granted).toEqual(['w1', 'w2', 'r1']);
    await release('r1');
    expect(granted).toEqual(['w1', 'w2', 'r1', 'w3']);
    take('x', 'exclusive');
    take('w4', 'writers');
    await settle();
    expect(granted).toEqual(['w1', 'w2', 'r1', 'w3']);
    await release('w3');
    expect(granted.at(-1)).toBe('x');
    await release('x');
    expect(granted.at(-1)).toBe('w4');
    await release('w4');
    expect(lock.idle).toBe(true);
  });

  it('keeps exclusive holders alone, one after the other', async () => {
    const lock = new ReadWriteLock();
    const { granted, take, settle, release } = tracker(lock);
    take('x1', 'exclusive');
    take('x2', 'exclusive');
    await settle();
    expect(granted).toEqual(['x1']);
    await release('x1');
    expect(granted).toEqual(['x1', 'x2']);
    await release('x2');
    expect(lock.idle).toBe(true);
  });
});
