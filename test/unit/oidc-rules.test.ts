import { describe, expect, it } from '@jest/globals';
import { globMatch } from '../../shared/service/identity/glob';
import { issuerUrlProblem } from '../../shared/service/identity/issuer-url';
import { claimsMatch } from '../../shared/service/identity/trust-policies';
import { WORKLOAD_SCOPES } from '../../shared/service/schemas/trust-policies';

describe('trust-policy glob patterns', () => {
  it.each([
    ['repo:octo-org/octo-repo:ref:refs/heads/main', 'repo:octo-org/octo-repo:ref:refs/heads/main', true],
    ['repo:octo-org/octo-repo:ref:refs/heads/*', 'repo:octo-org/octo-repo:ref:refs/heads/feature/x', true],
    ['repo:octo-org/*', 'repo:octo-org/other:environment:prod', true],
    ['refs/tags/v?.*', 'refs/tags/v1.2.3', true],
    ['*', '', true],
    ['a*b*c', 'axxbyyc', true],
    ['repo:octo-org/octo-repo:ref:refs/heads/main', 'repo:octo-org/octo-repo:ref:refs/heads/main2', false],
    ['repo:octo-org/octo-repo:*', 'repo:octo-org/octo-repo2:ref:refs/heads/main', false],
    ['refs/tags/v?.*', 'refs/tags/v12.3', false],
    ['Main', 'main', false],
    ['a*b*c', 'axxbyy', false],
    // Regex metacharacters are literal: the pattern is never compiled to a regex.
    ['refs/heads/(a|b)+', 'refs/heads/a', false],
    ['refs/heads/(a|b)+', 'refs/heads/(a|b)+', true],
  ])('%s against %s → %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('answers a pattern built to make backtracking matchers explode (no regex, no exponential search)', () => {
    const pattern = `${'*a'.repeat(120)}b`;
    const value = 'a'.repeat(1024);
    expect(globMatch(pattern, value)).toBe(false);
  });
});

describe('issuer URLs', () => {
  it('accepts HTTPS issuers and refuses plain HTTP off loopback', () => {
    expect(issuerUrlProblem('https://token.actions.githubusercontent.com', false)).toBeUndefined();
    expect(issuerUrlProblem('http://token.actions.githubusercontent.com', true)).toMatch(/https/);
    expect(issuerUrlProblem('https://user:pw@issuer.example.com', false)).toMatch(/credentials/);
    expect(issuerUrlProblem('not a url', false)).toMatch(/absolute URL/);
  });

  it('accepts loopback issuers only when allowed', () => {
    for (const issuer of ['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:9', 'https://127.0.0.1']) {
      expect(issuerUrlProblem(issuer, false)).toMatch(/VEXDESK_ALLOW_LOOPBACK_ISSUERS/);
      expect(issuerUrlProblem(issuer, true)).toBeUndefined();
    }
  });
});

describe('claim matching', () => {
  const claims = {
    repository_owner_id: '65',
    repository_id: '74',
    sub: 'repo:octo-org/octo-repo:environment:prod',
    ref: 'refs/heads/main',
    environment: 'prod',
  };

  it('needs every exact id and every pattern to hold', () => {
    expect(claimsMatch({ repository_owner_id: '65' }, claims)).toBe(true);
    expect(
      claimsMatch(
        { repository_owner_id: '65', repository_id: '74', sub: 'repo:octo-org/octo-repo:*', environment: 'prod' },
        claims,
      ),
    ).toBe(true);
    expect(claimsMatch({ repository_owner_id: '66' }, claims)).toBe(false);
    expect(claimsMatch({ repository_owner_id: '65', environment: 'staging' }, claims)).toBe(false);
  });

  it('does not match a pattern on a claim the token lacks, nor ids sent as numbers', () => {
    expect(claimsMatch({ repository_owner_id: '65', job_workflow_ref: '*' }, claims)).toBe(false);
    expect(claimsMatch({ repository_owner_id: '65' }, { ...claims, repository_owner_id: 65 })).toBe(false);
  });
});

describe('scopes a policy may grant', () => {
  it("are the spec's scopes, without settings or CRA reporting", () => {
    expect(WORKLOAD_SCOPES).toHaveLength(15);
    expect(WORKLOAD_SCOPES.some((scope) => scope.startsWith('settings:') || scope.startsWith('cra:'))).toBe(false);
  });
});
