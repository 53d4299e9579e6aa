/** A team's CSAF provider settings: a directory name unique across teams, and a publisher the CSAF schema accepts. */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTeamWithKey } from '../support/factories';

describe('CSAF provider settings', () => {
  const publisher = { category: 'vendor', name: 'Some Vendor', namespace: 'https://vendor.example' };

  it('keeps a directory name unique across teams, frees it on rename and removes the provider with null', async () => {
    const a = await createTeamWithKey();
    const b = await createTeamWithKey();
    const directory = `dir-${randomUUID().slice(0, 8)}`;
    expect((await a.api.put('/api/settings', { csafProvider: { directory, publisher } })).status).toBe(200);
    const taken = await b.api.put('/api/settings', { csafProvider: { directory, publisher } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('csaf_directory_taken');
    expect((await b.api.get('/api/settings')).body.data.csafProvider).toBeNull(); // nothing half-written

    expect(
      (await a.api.put('/api/settings', { csafProvider: { directory: `${directory}-new`, publisher } })).status,
    ).toBe(200);
    expect((await b.api.put('/api/settings', { csafProvider: { directory, publisher } })).status).toBe(200);
    expect((await a.api.get('/api/settings')).body.data.csafProvider).toMatchObject({
      directory: `${directory}-new`,
      wellKnown: false,
    });
    expect((await a.api.put('/api/settings', { csafProvider: null })).status).toBe(200);
    expect((await a.api.get('/api/settings')).body.data.csafProvider).toBeNull();
    // The freed name can be claimed again.
    expect(
      (await b.api.put('/api/settings', { csafProvider: { directory: `${directory}-new`, publisher } })).status,
    ).toBe(200);
  });

  it('refuses a publisher the CSAF schema would refuse with 422', async () => {
    const team = await createTeamWithKey();
    for (const body of [
      { directory: 'Bad_Name', publisher },
      { directory: 'good-name', publisher: { ...publisher, category: 'seller' } },
      { directory: 'good-name', publisher: { ...publisher, namespace: 'not a url' } },
    ])
      expect((await team.api.put('/api/settings', { csafProvider: body })).status).toBe(422);
  });
});
