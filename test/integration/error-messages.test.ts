/** Issue 9, item 15: every 4xx says what to fix, through the one error envelope. */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';
import { seedReleaseWithFindings } from '../support/seed';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

async function admin(
  env: NodeJS.ProcessEnv,
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [await adminBundle(), ...args], {
      cwd,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('validation messages', () => {
  it('says "accountId is required" for an audit export without one, in the details and the message', async () => {
    const { api } = await createTeamWithKey();
    const response = await api.get('/api/audit/export');

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([
      { path: 'accountId', message: 'accountId is required', code: 'invalid_type' },
    ]);
    expect(response.body.error.message).toBe('Query parameters failed validation: accountId is required');
  });

  it('shows an example of the accepted form for a bad date or date-time', async () => {
    const { api, teamId } = await createTeamWithKey();
    const audit = await api.get(`/api/audit/export?accountId=${teamId}&startDate=yesterday`);
    expect(audit.status).toBe(422);
    expect(audit.body.error.details[0]).toMatchObject({
      path: 'startDate',
      message: expect.stringContaining('2026-01-31T00:00:00Z'),
    });

    const product = (await api.post('/api/products', { name: 'Dates', slug: uniqueSlug('dates') })).body.data;
    const release = await api.post(`/api/products/${product.id}/releases`, {
      version: '1.0.0',
      releaseDate: '31/01/2026',
    });
    expect(release.status).toBe(422);
    expect(release.body.error.details[0]).toMatchObject({
      path: 'releaseDate',
      message: expect.stringMatching(/2026-01-31 or 2026-01-31T00:00:00Z/),
    });
  });

  it('names the missing comment when reject or unlock is sent with no body', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { release } = await seedReleaseWithFindings(api, teamId, 1);
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'cyclonedx_vex' })).body.data;
    expect((await api.post(`/api/vex/${document.id}/submit`)).status).toBe(200);

    for (const path of [`/api/vex/${document.id}/reject`, `/api/releases/${release.id}/unlock`]) {
      const response = await api.post(path);
      expect({ path, status: response.status, code: response.body.error.code }).toEqual({
        path,
        status: 422,
        code: 'validation_failed',
      });
      expect(response.body.error.message).toContain('comment is required');
      expect(response.body.error.details).toEqual([
        { path: 'comment', message: 'comment is required', code: 'invalid_type' },
      ]);
    }
    expect((await api.post(`/api/vex/${document.id}/reject`, { comment: ' ' })).body.error.details[0].message).toBe(
      'comment must not be empty',
    );
  });
});

describe('release_locked', () => {
  it('names the VEX document holding the lock and its status', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { release } = await seedReleaseWithFindings(api, teamId, 1);
    const holder = (await api.post(`/api/releases/${release.id}/vex`, { format: 'cyclonedx_vex' })).body.data;
    const other = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    expect((await api.post(`/api/vex/${holder.id}/submit`)).status).toBe(200);

    for (const response of [
      await api.post(`/api/vex/${other.id}/submit`),
      await api.put(`/api/releases/${release.id}`, { name: 'renamed' }),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({
        code: 'release_locked',
        message: expect.stringContaining(`VEX document ${holder.id}`),
        details: [{ path: 'locked_by_vex_id', message: holder.id, code: 'submitted' }],
      });
    }
  });
});

describe('unknown methods', () => {
  it("answers 405 with Allow listing the route table's methods for a known path, before any key check", async () => {
    const { key } = await createTeamWithKey();
    const cases = [
      { method: 'DELETE', path: '/api/settings', allow: 'GET, PUT', withKey: true },
      { method: 'PATCH', path: '/api/products', allow: 'GET, POST', withKey: false },
      { method: 'GET', path: '/api/sboms/upload', allow: 'POST', withKey: true },
      { method: 'POST', path: '/api/disclosures', allow: 'GET', withKey: false },
    ];
    for (const { method, path, allow, withKey } of cases) {
      const response = await request(method, path, withKey ? { key } : {});
      expect({
        method,
        path,
        status: response.status,
        allow: response.headers.get('allow'),
        code: response.body?.error?.code,
      }).toEqual({ method, path, status: 405, allow, code: 'method_not_allowed' });
      expect(response.body.error.message).toBe(`${method} is not allowed on ${path}; allowed: ${allow}`);
      expect(response.body.error.requestId).toEqual(expect.any(String));
    }
    expect((await request('GET', '/api/no-such-route', { key })).status).toBe(404);
  });
});

describe('admin CLI', () => {
  it('lists the allowed --expires-in-days values', async () => {
    const { teamId } = await createTeamWithKey();
    const result = await admin(
      { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR },
      ROOT,
      'key',
      'create',
      '--team',
      teamId,
      '--name',
      'ci',
      '--scopes',
      'all',
      '--expires-in-days',
      '45',
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--expires-in-days must be one of 30, 90, 180, 365 (got "45")');
  });

  it('refuses to run on a data directory that does not exist, says where it looked, and does not create it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vexdesk-admin-'));
    const env = { ...process.env };
    delete env.DATA_DIR;
    const result = await admin(env, cwd, 'team', 'create', '--name', 'Nowhere');

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`No Vexdesk data in ${join(cwd, '.data')} (DATA_DIR is not set`);
    expect(result.stdout).toBe('');
    expect(existsSync(join(cwd, '.data'))).toBe(false);
  });
});
