/**
 * Outbound requests to addresses a customer chooses (docs/security.md): an OIDC issuer, and the key set
 * its discovery document names, are fetched from the internet only, never from this host, the VPC or a
 * link-local metadata endpoint. The test server trusts loopback issuers (VEXDESK_ALLOW_LOOPBACK_ISSUERS=1,
 * its stand-in issuers run on 127.0.0.1), so loopback is held in-process with the production rule.
 */
import { OPERATOR_OWNER } from '../../shared/service/identity/credential-owner';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditPut } from '../../shared/service/audit/audit-log';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { issuerUrlProblem } from '../../shared/service/identity/issuer-url';
import { issuerKeys, IssuerUnavailableError } from '../../shared/service/identity/oidc-issuers';
import { TrustPolicyStore } from '../../shared/service/identity/trust-policy-store';
import { fetchFromPublicAddress, nonPublicRange, requestPublicAddress } from '../../shared/service/net/public-address';
import { createTeamWithKey } from '../support/factories';
import { request } from '../support/http-client';
import { OWNER_ID, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';

/** Non-public addresses as an issuer URL's host: private, link-local (cloud metadata), CGNAT, ULA, reserved, and encodings of them. */
const NON_PUBLIC_HOSTS = [
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '198.18.0.1',
  '192.0.2.10',
  '2852039166', // 169.254.169.254 as one decimal number
  '0xa9fea9fe', // the same in hex
  '0251.0376.0251.0376', // the same in octal
  '[::]',
  '[fd00::1]',
  '[fe80::1]',
  '[fec0::1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:10.0.0.1]',
  '[64:ff9b::a9fe:a9fe]', // NAT64 of 169.254.169.254
  '[2001:db8::1]',
];

/** A TCP listener that counts connections: whether the server under test tried to reach an address. */
async function connectionCounter(): Promise<{ server: Server; port: number; count: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, port: (server.address() as AddressInfo).port, count: () => connections };
}

function policyBody(issuer: string) {
  return {
    name: `policy-${randomUUID().slice(0, 8)}`,
    issuer,
    audience: 'vexdesk',
    claims: { repository_owner_id: OWNER_ID },
    scopes: ['products:read'],
  };
}

let listener: Awaited<ReturnType<typeof connectionCounter>>;
let issuer: TestIssuer;

beforeAll(async () => {
  listener = await connectionCounter();
  issuer = await startTestIssuer();
});

afterAll(async () => {
  await issuer.close();
  await new Promise((closed) => listener.server.close(closed));
});

describe('trust policy issuers', () => {
  it.each(NON_PUBLIC_HOSTS)('refuses https://%s as an issuer (422)', async (host) => {
    const { api } = await createTeamWithKey();
    const response = await api.post('/api/trust-policies', policyBody(`https://${host}/`));
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toMatch(/issuer/);
  });

  it('still accepts a public HTTPS issuer and, in tests, the loopback stand-in', async () => {
    const { api } = await createTeamWithKey();
    expect(
      (await api.post('/api/trust-policies', policyBody('https://token.actions.githubusercontent.com'))).status,
    ).toBe(201);
    expect((await api.post('/api/trust-policies', policyBody(issuer.issuer))).status).toBe(201);
  });

  it('never connects to a non-public issuer of a policy stored before the check, on an anonymous exchange', async () => {
    const team = await createTeamWithKey();
    // 0.0.0.0 reaches this host: the listener sees any attempt.
    const storedIssuer = `https://0.0.0.0:${listener.port}`;
    const policy = {
      ...policyBody(storedIssuer),
      id: randomUUID(),
      ttlMinutes: 10,
      createdAt: new Date().toISOString(),
      createdBy: team.memberId,
    } as const;
    await TrustPolicyStore.create(
      team.teamId,
      { ...policy, scopes: ['products:read'], owner: OPERATOR_OWNER },
      auditPut(team.teamId, OPERATOR_ACTOR, {
        action: 'create',
        entityType: 'trust_policy',
        entityId: policy.id,
        entityName: policy.name,
        changes: {},
      }),
    );
    const before = listener.count();
    const response = await request('POST', '/api/auth/oidc/token', {
      body: { token: await issuer.mint({ iss: storedIssuer }), teamId: team.teamId },
    });
    expect(response.status).toBe(503);
    expect(listener.count()).toBe(before);
  });
});

describe('the production rule (loopback not allowed)', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '127.1',
    '2130706433',
    '[::1]',
    '[::ffff:127.0.0.1]',
    'localhost',
    'app.localhost',
  ])('refuses the loopback issuer https://%s', (host) => {
    expect(issuerUrlProblem(`https://${host}/`, false)).toBeDefined();
  });

  it('refuses an issuer whose name resolves to a non-public address, without connecting', async () => {
    const before = listener.count();
    await expect(issuerKeys(`https://[::ffff:127.0.0.1]:${listener.port}`, false)).rejects.toThrow(
      IssuerUnavailableError,
    );
    // The name is resolved, and the connection would go only to a checked address.
    await expect(
      fetchFromPublicAddress(`http://localhost:${listener.port}/`, { allowLoopback: false }),
    ).rejects.toThrow(/non-public/);
    expect(listener.count()).toBe(before);
  });

  it('reaches a loopback address only when loopback is allowed (the tests escape)', async () => {
    const response = await fetchFromPublicAddress(`${issuer.issuer}/.well-known/openid-configuration`, {
      allowLoopback: true,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { issuer: string }).issuer).toBe(issuer.issuer);
  });

  it('reuses a kept-alive connection only under the rule it was opened with', async () => {
    let connections = 0;
    const server = createHttpServer((_request, response) => response.end('ok'));
    server.keepAliveTimeout = 30_000;
    server.on('connection', () => (connections += 1));
    // Every interface: `localhost` may resolve to ::1 or 127.0.0.1.
    await new Promise<void>((listening) => server.listen(0, listening));
    try {
      const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
      for (let request = 0; request < 2; request += 1) {
        // The pool frees a connection for the next request a tick after its answer ends.
        await new Promise((tick) => setImmediate(tick));
        const response = await fetchFromPublicAddress(url, { allowLoopback: true });
        expect(await response.text()).toBe('ok');
      }
      expect(connections).toBe(1);
      // The idle connection to localhost is not handed to a request under the production rule: refused, unsent.
      await expect(fetchFromPublicAddress(url, { allowLoopback: false })).rejects.toThrow(/non-public/);
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });

  it('sends a webhook request to a checked address only, follows no redirect, gives up at its timeout', async () => {
    await expect(
      requestPublicAddress(`http://127.0.0.1:${listener.port}/`, { method: 'POST', body: '{}', allowLoopback: false }),
    ).rejects.toThrow(/non-public/);
    await expect(
      requestPublicAddress(`http://169.254.169.254/latest/meta-data/`, { allowLoopback: true }),
    ).rejects.toThrow(/non-public/);
    const server = createHttpServer((incoming, response) => {
      if (incoming.url === '/slow') return; // never answers
      if (incoming.url === '/large') return void response.end('x'.repeat(2048));
      response.writeHead(302, { location: `http://169.254.169.254/` }).end('moved');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const moved = await requestPublicAddress(`${base}/`, { method: 'POST', body: '{}', allowLoopback: true });
      expect(moved.status).toBe(302);
      expect(moved.body.toString()).toBe('moved');
      const started = Date.now();
      await expect(requestPublicAddress(`${base}/slow`, { allowLoopback: true, timeoutMs: 300 })).rejects.toThrow(
        /within 300 ms/,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      await expect(requestPublicAddress(`${base}/large`, { allowLoopback: true, maxBytes: 1024 })).rejects.toThrow(
        /larger than 1024 bytes/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });

  it('classifies addresses with the special-purpose ranges, IPv4-mapped IPv6 as IPv4', () => {
    for (const host of NON_PUBLIC_HOSTS) {
      // As the URL parser hands the host over: IPv4 in dotted decimal, IPv6 in brackets.
      const address = new URL(`https://${host}/`).hostname.replace(/^\[|\]$/g, '');
      expect(nonPublicRange(address, { allowLoopback: true })).toBeDefined();
    }
    expect(nonPublicRange('127.0.0.1', { allowLoopback: false })).toBe('loopback');
    expect(nonPublicRange('::ffff:127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(nonPublicRange('140.82.112.3', { allowLoopback: false })).toBeUndefined();
    expect(nonPublicRange('2606:4700::1111', { allowLoopback: false })).toBeUndefined();
  });
});
