/**
 * A stand-in for GitHub's OIDC issuer, made by the test: an RSA key pair, its
 * JWKS and an OpenID discovery document served on loopback over HTTP (the
 * server under test trusts loopback issuers only with
 * VEXDESK_ALLOW_LOOPBACK_ISSUERS=1), minting tokens with GitHub's real claim set
 * (docs.github.com "OpenID Connect reference": example token claims).
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface GitHubClaims {
  [claim: string]: unknown;
}

export interface TestIssuer {
  issuer: string;
  /** Signs a token; `claims` override GitHub's defaults (undefined removes a claim). */
  mint(claims?: GitHubClaims, options?: { kid?: string; key?: CryptoKey; alg?: string }): Promise<string>;
  /** The stand-in's default claims for a repository (ids as strings, as GitHub sends them). */
  claims(overrides?: GitHubClaims): GitHubClaims;
  /** A key pair whose public half the JWKS does not publish. */
  foreignKey(): Promise<CryptoKey>;
  /** How many times the server fetched the JWKS. */
  jwksFetches(): number;
  close(): Promise<void>;
}

export const OWNER_ID = '65';
export const REPOSITORY_ID = '74';

export async function startTestIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = `test-${randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  let issuer = '';
  const server: Server = createServer((request, response) => {
    if (request.url === '/.well-known/openid-configuration') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/.well-known/jwks`,
          subject_types_supported: ['public', 'pairwise'],
          response_types_supported: ['id_token'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid'],
          claims_supported: [
            'sub',
            'aud',
            'exp',
            'iat',
            'iss',
            'jti',
            'nbf',
            'ref',
            'repository',
            'repository_id',
            'repository_owner',
            'repository_owner_id',
            'run_id',
            'run_number',
            'run_attempt',
            'actor',
            'actor_id',
            'workflow',
            'workflow_ref',
            'workflow_sha',
            'head_ref',
            'base_ref',
            'event_name',
            'ref_type',
            'ref_protected',
            'environment',
            'environment_node_id',
            'job_workflow_ref',
            'job_workflow_sha',
            'repository_visibility',
            'runner_environment',
          ],
        }),
      );
    } else if (request.url === '/.well-known/jwks') {
      fetches += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [jwk] }));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const claims = (overrides: GitHubClaims = {}): GitHubClaims => {
    const now = Math.floor(Date.now() / 1000);
    const base: GitHubClaims = {
      jti: randomUUID(),
      sub: 'repo:octo-org/octo-repo:ref:refs/heads/main',
      aud: 'vexdesk',
      ref: 'refs/heads/main',
      sha: 'e3f1c2a9b8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3',
      repository: 'octo-org/octo-repo',
      repository_owner: 'octo-org',
      repository_owner_id: OWNER_ID,
      repository_id: REPOSITORY_ID,
      repository_visibility: 'private',
      run_id: '9876543210',
      run_number: '10',
      run_attempt: '1',
      runner_environment: 'github-hosted',
      actor: 'octocat',
      actor_id: '12',
      workflow: 'ci',
      workflow_ref: 'octo-org/octo-repo/.github/workflows/ci.yml@refs/heads/main',
      workflow_sha: 'e3f1c2a9b8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3',
      head_ref: '',
      base_ref: '',
      event_name: 'push',
      ref_type: 'branch',
      ref_protected: 'true',
      job_workflow_ref: 'octo-org/octo-repo/.github/workflows/ci.yml@refs/heads/main',
      job_workflow_sha: 'e3f1c2a9b8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3',
      iss: issuer,
      // GitHub: valid from 10 minutes before issue, for 5 minutes after.
      nbf: now - 600,
      iat: now,
      exp: now + 300,
    };
    const merged: GitHubClaims = { ...base, ...overrides };
    return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
  };

  return {
    issuer,
    claims,
    async mint(overrides = {}, options = {}) {
      return new SignJWT(claims(overrides))
        .setProtectedHeader({ alg: options.alg ?? 'RS256', typ: 'JWT', kid: options.kid ?? kid })
        .sign(options.key ?? privateKey);
    },
    async foreignKey() {
      return (await generateKeyPair('RS256')).privateKey;
    },
    jwksFetches: () => fetches,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}
