/**
 * A handler answers what its route documents: the compiler refuses a body the route's response schema does
 * not describe, or a status the route does not declare (`RouteResult`, shared/service/http/group-handler.ts).
 * `npm run typecheck` is the real check here: each `@ts-expect-error` fails it once the error it expects is gone.
 */
import { describe, expect, it } from '@jest/globals';
import type { GroupOperations } from '../../shared/service/http/group-handler';
import type { vexRoutes } from '../../shared/service/http/route-groups/vex';

const approval = {
  id: 'a',
  action: 'submit' as const,
  actor_id: 'm',
  actor_name: 'Ann',
  comment: '',
  created_at: '2026-01-31T00:00:00Z',
  document_version: 1,
};

const operations: GroupOperations<typeof vexRoutes> = {
  listVexApprovals: () => Promise.resolve({ status: 200, body: { data: [approval] } }),
  // @ts-expect-error approvals are `{ data: [...] }`, not a bare list
  listVexDocuments: () => Promise.resolve({ status: 200, body: [approval] }),
  // @ts-expect-error a record without a field the schema requires
  getVexDocument: () => Promise.resolve({ status: 200, body: { data: { id: 'v' } } }),
  // @ts-expect-error deleting answers 204 without a body, not 200
  deleteVexDocument: () => Promise.resolve({ status: 200 }),
  // Raw bytes are always allowed, with a declared status.
  unlockRelease: () => Promise.resolve({ status: 200, raw: '{}', contentType: 'application/json' }),
};

describe('route results', () => {
  it('are typed per route (the expectations above are compile-time)', () => {
    expect(Object.keys(operations)).toEqual([
      'listVexApprovals',
      'listVexDocuments',
      'getVexDocument',
      'deleteVexDocument',
      'unlockRelease',
    ]);
  });
});
