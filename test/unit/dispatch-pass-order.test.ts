/**
 * The order of a dispatcher pass's work (shared/service/notifications/dispatch-pass.ts): once the outbox holds more
 * than a page, the writes of deliveries already sent wait while the pass has requests to make, so a burst's later
 * events are not sent after its earlier ones' records; a pass that keeps up writes beside its requests.
 */
import { describe, expect, it } from '@jest/globals';
import { DispatchPass } from '../../shared/service/notifications/dispatch-pass';

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('a dispatch pass', () => {
  it('once behind, holds the writes while a request is in flight, and lets them go when none is', async () => {
    const pass = new DispatchPass();
    pass.fallBehind();
    const order: string[] = [];
    const first = deferred();
    const second = deferred();
    const sends = [
      pass.sending(async () => {
        await first.promise;
        order.push('send 1');
      }),
      pass.sending(async () => {
        await second.promise;
        order.push('send 2');
      }),
    ];
    const write = pass.writing(() => {
      order.push('write');
      return Promise.resolve();
    });
    await settled();
    first.resolve();
    await settled();
    expect(order).toEqual(['send 1']);
    second.resolve();
    await Promise.all([...sends, write]);
    expect(order).toEqual(['send 1', 'send 2', 'write']);
  });

  it('writes beside its requests while it keeps up', async () => {
    const pass = new DispatchPass();
    const gate = deferred();
    const send = pass.sending(() => gate.promise);
    let written = false;
    await pass.writing(() => {
      written = true;
      return Promise.resolve();
    });
    expect(written).toBe(true);
    gate.resolve();
    await send;
  });

  it('writes at once when it has no request to make', async () => {
    const pass = new DispatchPass();
    pass.fallBehind();
    let written = false;
    await pass.writing(() => {
      written = true;
      return Promise.resolve();
    });
    expect(written).toBe(true);
  });

  it('once behind, makes at most eight writes at a time, the rest in order', async () => {
    const pass = new DispatchPass();
    pass.fallBehind();
    const running: number[] = [];
    let most = 0;
    const gates = Array.from({ length: 10 }, () => deferred());
    const order: number[] = [];
    const writes = gates.map((gate, index) =>
      pass.writing(async () => {
        running.push(index);
        most = Math.max(most, running.length);
        await gate.promise;
        running.splice(running.indexOf(index), 1);
        order.push(index);
      }),
    );
    await settled();
    expect(running).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const gate of gates) gate.resolve();
    await Promise.all(writes);
    expect(most).toBe(8);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
