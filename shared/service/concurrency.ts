/**
 * Runs `work` over `items` with at most `concurrency` calls in flight, in the items' order; resolves when all are
 * done, rejects with the first failure (the calls already started still run to their end).
 *
 * Where a request makes many independent table calls (one per product, one per release), one at a time would wait
 * for the event loop once per call: under load that wait, not the call, is most of the request's time.
 */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
