/** Small helpers shared by test files. */
import { expect } from '@jest/globals';

/** Runs `work` and returns the error it rejects with (fails the test when it resolves). */
export async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

/** The report section element with this id (the renderer gives every section one). */
export function section(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start, html.indexOf('</section>', start));
}

export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}
