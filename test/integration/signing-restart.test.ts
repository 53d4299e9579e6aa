import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../support/server-process';

interface Bootstrap {
  apiKey: string;
}

async function call(baseUrl: string, method: string, path: string, key?: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON
}

describe('signing key rotation across a restart', () => {
  it('verifies as valid with the key, and as null after a restart without it; data survives the restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-rotation-'));
    const first = await startServerProcess(dataDir, { DISCLOSURE_SIGNING_KEY: 'first-key' });
    let slug: string;
    try {
      const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
      const created = await call(first.baseUrl, 'POST', '/api/products', apiKey, { name: 'Rotated', slug: 'rotated' });
      expect(created.body).toHaveProperty('data');
      const product = created.body.data;
      const release = (
        await call(first.baseUrl, 'POST', `/api/products/${product.id}/releases`, apiKey, { version: '1.0.0' })
      ).body.data;
      const document = (
        await call(first.baseUrl, 'POST', `/api/releases/${release.id}/vex`, apiKey, { format: 'cyclonedx_vex' })
      ).body.data; // a release without findings: only CycloneDX can say "none"
      for (const step of ['submit', 'approve'])
        expect((await call(first.baseUrl, 'POST', `/api/vex/${document.id}/${step}`, apiKey, {})).status).toBe(200);
      const published = await call(first.baseUrl, 'POST', `/api/vex/${document.id}/publish`, apiKey, {});
      expect(published.status).toBe(200);
      slug = published.body.disclosure.public_slug;
      expect((await call(first.baseUrl, 'GET', `/api/disclosures/${slug}/verify`)).body).toMatchObject({
        signed: true,
        signature_valid: true,
      });
    } finally {
      await first.stop();
    }
    const second = await startServerProcess(dataDir, { DISCLOSURE_SIGNING_KEY: undefined });
    try {
      const verify = await call(second.baseUrl, 'GET', `/api/disclosures/${slug}/verify`);
      expect(verify.body).toMatchObject({
        public_slug: slug,
        signed: true,
        signature_valid: null,
        content_hash_valid: true,
      });
    } finally {
      await second.stop();
    }
  });
});
