/**
 * What an audit-coverage scenario is (test/support/audit-coverage.ts runs them), and the arrangements
 * the scenarios of several route groups share.
 */
import { uniqueSlug, type createTeamWithKey } from '../factories';
import type { HttpResponse } from '../http-client';
import { seedReleaseWithFindings, type SeededFinding } from '../seed';

export type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
export type Data<T> = { data: T };
export type WithId = Data<{ id: string }>;
export interface Seeded {
  product: { id: string };
  release: { id: string };
  sbom: { id: string };
  findings: SeededFinding[];
}

/** What a scenario did: the call under test, and the entity its audit entry must name (when the call returns it). */
export interface Performed {
  response: HttpResponse<unknown>;
  entityId?: string | undefined;
  /** The audit actor when it is not the calling key (the public OIDC exchange acts as the trust policy). */
  actorName?: string;
}

/** Arrange everything the call needs, then `act` performs exactly the call under test. */
export type Scenario = (team: Team) => Promise<{ act: () => Promise<Performed> }>;

/** The body of a setup call, which must succeed. */
export function ok<T>(response: HttpResponse<T>, what: string): T {
  if (response.status >= 300) throw new Error(`${what} failed during setup: ${response.status} ${response.text}`);
  return response.body;
}

/** `data.<field>` of a response body, when the call returned one. */
export function dataField(response: HttpResponse<unknown>, field: string): string | undefined {
  const value = (response.body as Partial<Data<Record<string, unknown>>> | undefined)?.data?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** A new product of the team. */
export async function product(team: Team) {
  return ok(await team.api.post<WithId>('/api/products', { name: 'Audited', slug: uniqueSlug() }), 'create product')
    .data;
}

/** A release of a new product of the team. */
export async function release(team: Team) {
  const created = await product(team);
  return ok(await team.api.post<WithId>(`/api/products/${created.id}/releases`, { version: '1.0.0' }), 'create release')
    .data;
}

/** A release with a scanned SBOM and three findings. */
export async function seeded(team: Team): Promise<Seeded> {
  return seedReleaseWithFindings(team.api, team.teamId, 3);
}
