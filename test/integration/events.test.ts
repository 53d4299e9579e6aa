import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { batchWrite } from '../../shared/service/data/table-client';
import { eventId, eventItem, type TeamEvent } from '../../shared/service/events/event-store';
import { eventListResponse } from '../../shared/service/schemas/events';
import { Scans } from '../../shared/service/scans/scans';
import { addKey, createTeamWithKey } from '../support/factories';
import type { client } from '../support/http-client';
import { seedReleaseWithFindings } from '../support/seed';

type Api = ReturnType<typeof client>;
interface EventView {
  id: string;
  type: string;
  occurred_at: string;
  product_id: string;
  release_id: string;
  sbom_id?: string;
  data: Record<string, unknown>;
}

async function events(api: Api, query = ''): Promise<EventView[]> {
  const response = await api.get(`/api/events?perPage=1000${query ? `&${query}` : ''}`);
  expect(response.status).toBe(200);
  expect(eventListResponse.safeParse(response.body).error?.issues ?? []).toEqual([]);
  return response.body.data as EventView[];
}

/** `count` events of one team written as a bulk change writes them (batchWrite), one millisecond apart. */
async function burst(teamId: string, count: number, start = Date.parse('2026-03-01T00:00:00.000Z')) {
  const productId = randomUUID();
  const releaseId = randomUUID();
  const written: TeamEvent[] = Array.from({ length: count }, (_, index) => {
    const occurredAt = new Date(start + index).toISOString();
    return {
      id: eventId(releaseId, 'finding.detected', String(index)),
      type: 'finding.detected',
      occurredAt,
      teamId,
      productId,
      releaseId,
      findingId: randomUUID(),
      advisoryId: `GHSA-test-${index}`,
      data: { index },
    };
  });
  await batchWrite(written.map(eventItem), [], { concurrency: 8 });
  return { productId, releaseId, written };
}

describe('the event stream', () => {
  it('reports a completed scan with its counts, and a failed one with its error', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { product, release, sbom } = await seedReleaseWithFindings(api, teamId, 3);
    const completed = (await events(api, 'type=scan.completed')).filter((event) => event.sbom_id === sbom.id);
    expect(completed.length).toBeGreaterThanOrEqual(1);
    // The first scan found all three; a rescan of the same SBOM adds none.
    expect(completed.at(-1)).toMatchObject({
      type: 'scan.completed',
      product_id: product.id,
      release_id: release.id,
      data: { finding_count: 3, added: 3, no_longer_detected: 0 },
    });
    expect(completed.every((event) => event.data.finding_count === 3)).toBe(true);

    await Scans.recordFailure(teamId, sbom.id, new Error('inventory unreadable'));
    const [failed] = await events(api, 'type=scan.failed');
    expect(failed).toMatchObject({ sbom_id: sbom.id, release_id: release.id, data: { error: 'inventory unreadable' } });
  });

  it('reports each VEX transition with the document, version and format', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { release } = await seedReleaseWithFindings(api, teamId, 1);
    const create = async () =>
      (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex', author: 'PSIRT' })).body.data as {
        id: string;
      };
    const rejectedDoc = await create();
    expect((await api.post(`/api/vex/${rejectedDoc.id}/submit`, {})).status).toBe(200);
    expect((await api.post(`/api/vex/${rejectedDoc.id}/reject`, { comment: 'not yet' })).status).toBe(200);
    const published = await create();
    for (const step of ['submit', 'approve', 'publish'])
      expect((await api.post(`/api/vex/${published.id}/${step}`, {})).status).toBe(200);

    const vex = (await events(api, 'type=vex.submitted,vex.approved,vex.rejected,vex.published')).reverse();
    expect(vex.map((event) => [event.type, event.data.document_id])).toEqual([
      ['vex.submitted', rejectedDoc.id],
      ['vex.rejected', rejectedDoc.id],
      ['vex.submitted', published.id],
      ['vex.approved', published.id],
      ['vex.published', published.id],
    ]);
    expect(vex[1]!.data).toMatchObject({ format: 'openvex', version: 1, comment: 'not yet' });
    expect(vex[4]).toMatchObject({ release_id: release.id, data: { format: 'openvex', version: 1 } });
    expect(typeof vex[4]!.data.disclosure_slug).toBe('string');
  });

  it('filters by type, product, release and since (exclusive), newest first', async () => {
    const { api, teamId } = await createTeamWithKey();
    const first = await burst(teamId, 5);
    const second = await burst(teamId, 3, Date.parse('2026-03-02T00:00:00.000Z'));
    // A retried bulk write derives the same ids and rewrites the same items: no copies.
    await batchWrite(first.written.map(eventItem));
    const all = await events(api);
    expect(all.map((event) => event.occurred_at)).toEqual(
      [...first.written, ...second.written].map((event) => event.occurredAt).reverse(),
    );
    expect(all[0]).toMatchObject({ finding_id: second.written[2]!.findingId, advisory_id: 'GHSA-test-2' });

    expect((await events(api, `productId=${first.productId}`)).length).toBe(5);
    expect((await events(api, `releaseId=${second.releaseId}`)).length).toBe(3);
    expect((await events(api, `productId=${first.productId}&releaseId=${second.releaseId}`)).length).toBe(0);
    expect((await events(api, 'type=scan.completed')).length).toBe(0);
    expect((await events(api, 'type=finding.detected,scan.failed')).length).toBe(8);
    // Exclusive: the event at exactly `since` is left out; an offset names the same instant.
    const since = await events(api, `since=${encodeURIComponent(first.written[3]!.occurredAt)}`);
    expect(since.map((event) => event.data.index)).toEqual([2, 1, 0, 4]);
    expect((await events(api, `since=${encodeURIComponent('2026-03-01T01:00:00.003+01:00')}`)).length).toBe(4);
  });

  it('pages a burst of 10,000 events without losing or repeating one', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { written } = await burst(teamId, 10_000);
    const seen: string[] = [];
    const started = performance.now();
    for (let page = 1; ; page += 1) {
      const response = await api.get(`/api/events?perPage=1000&page=${page}`);
      expect(response.status).toBe(200);
      expect(response.body.meta).toMatchObject({ total: 10_000, totalPages: 10, page });
      seen.push(...(response.body.data as EventView[]).map((event) => event.id));
      if (!response.body.meta.hasNextPage) break;
    }
    console.log(`10,000 events read in 10 pages in ${Math.round(performance.now() - started)} ms`);
    expect(seen).toEqual(written.map((event) => event.id).reverse());
  }, 120_000);

  it("shows a team none of another team's events", async () => {
    const owner = await createTeamWithKey();
    await burst(owner.teamId, 3);
    const other = await createTeamWithKey();
    expect(await events(other.api)).toEqual([]);
  });

  it('answers 422 for a bad query and 403 without vulnerabilities:read', async () => {
    const { api, teamId, memberId } = await createTeamWithKey();
    for (const query of [
      'type=finding.created',
      'since=yesterday',
      'perPage=1001',
      'page=0',
      'productId=not-a-uuid',
      'cursor=abc',
    ]) {
      const response = await api.get(`/api/events?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
    }
    const narrow = await addKey(teamId, memberId, ['products:read']);
    expect((await narrow.api.get('/api/events')).status).toBe(403);
  });
});
