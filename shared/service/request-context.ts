/**
 * What the current invocation acts as, carried through its async calls: the
 * catalog function whose code runs (the AWS call recorder attributes calls by
 * it, shared/service/aws-call-log.ts) and the team a request acts for (the AWS clients
 * scope themselves to it, shared/service/aws-clients.ts). One AsyncLocalStorage for
 * both, so a team request inside a recorded function keeps both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  /** Catalog name of the function whose code runs (lib/function-catalog.ts). */
  function?: string;
  /** The team from the authorizer context (never from the request). */
  teamId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function currentContext(): RequestContext {
  return storage.getStore() ?? {};
}

function runWith<T>(patch: RequestContext, body: () => T): T {
  return storage.run({ ...currentContext(), ...patch }, body);
}

/**
 * Runs `body` as the code of the catalog function `name`: the calls it makes
 * are recorded under that name. The local runtime wraps each handler
 * invocation in this; on AWS each function runs alone and nothing records.
 */
export function runAsFunction<T>(name: string, body: () => T): T {
  return runWith({ function: name }, body);
}

/**
 * Runs `body` on behalf of one team: every DynamoDB and S3 call it makes goes
 * through clients scoped to that team (docs/architecture/request-path.md "Tenant-scoped
 * credentials").
 */
export function runAsTeam<T>(teamId: string, body: () => T): T {
  return runWith({ teamId }, body);
}
