/**
 * Lost races of conditional writes, retried inside the request (docs/architecture/request-path.md
 * "Concurrent updates"): a write conditioned on what it read fails when another request
 * changed that first; it is planned again from a fresh read instead of surfacing a 409.
 */
import { TransactionFailedError } from './table-client';

/** Enough for 25 writers racing on one item: each round lets at least one of them commit. */
const MAX_ATTEMPTS = 25;

/**
 * True when the transaction failed because another write got there first: a condition on
 * one of `indexes` failed, or DynamoDB cancelled it for a conflicting concurrent transaction.
 */
export function lostRace(error: unknown, indexes: number[]): boolean {
  if (!(error instanceof TransactionFailedError)) return false;
  return error.reasons.includes('TransactionConflict') || indexes.some((index) => error.failedAt(index));
}

export const RETRY = Symbol('retry');

/**
 * Runs `attempt` (read, plan, write) until it returns a result; `RETRY` means it lost a race.
 * Short random pauses keep racing writers from colliding again in lockstep.
 */
export async function retryLostRaces<T>(attempt: () => Promise<T | typeof RETRY>, exhausted: () => Error): Promise<T> {
  for (let round = 1; round <= MAX_ATTEMPTS; round += 1) {
    const result = await attempt();
    if (result !== RETRY) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * round));
  }
  throw exhausted();
}

/**
 * Condition that each attribute still holds the value that was read (`null` = absent or NULL), so
 * an audit entry's "from" values are true; other attributes may change freely meanwhile.
 */
export function unchangedCondition(read: Record<string, unknown>): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  Object.entries(read).forEach(([attribute, value], index) => {
    names[`#was${index}`] = attribute;
    if (value === null || value === undefined) {
      // Items written whole store an empty optional field as NULL, patches remove it: both mean null.
      values[':nullType'] = 'NULL';
      parts.push(`(attribute_not_exists(#was${index}) OR attribute_type(#was${index}, :nullType))`);
    } else {
      values[`:was${index}`] = value;
      parts.push(`#was${index} = :was${index}`);
    }
  });
  return { expression: parts.join(' AND '), names, values };
}

/**
 * The supplied fields whose value differs from what was read (`patch`), and the values they
 * had (`previous`, for `unchangedCondition`): an update writes only these.
 */
export function changedFields<T, F extends keyof T & string>(
  current: T,
  input: { [K in F]?: T[K] | undefined },
  fields: readonly F[],
): { patch: Partial<Pick<T, F>>; previous: Record<string, unknown> } {
  const patch: Partial<Pick<T, F>> = {};
  const previous: Record<string, unknown> = {};
  for (const field of fields) {
    const value = input[field];
    if (value === undefined || value === current[field]) continue;
    patch[field] = value;
    previous[field] = current[field];
  }
  return { patch, previous };
}
