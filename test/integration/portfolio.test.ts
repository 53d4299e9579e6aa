/**
 * Portfolio questions through HTTP (docs/portfolio.md): two products whose releases ship the same
 * package; an advisory found across both by any of its identifiers; the package found by purl
 * (with and without a version) and by ecosystem + name; another team sees none of it; bad queries
 * are 422.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { importAdvisories } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';

type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];

const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
const lib = `portfolio-${suffix}-lib`;
const other = `portfolio-${suffix}-other`;
const nameOnly = `portfolio-${suffix}-bare`;
const cve = `CVE-2093-${randomInt(1_000_000, 9_000_000)}`;
const ghsa = `GHSA-port-${suffix}-aaaa`;
/** A record known by a non-CVE id whose only alias is a GHSA id no record of the corpus has. */
const osvId = `OSV-2093-${suffix}`;
const osvAlias = `GHSA-port-${suffix}-bbbb`;

async function importCorpus(): Promise<void> {
  const advisory = (id: string, aliases: string[], name: string) => ({
    source: 'portfolio-test',
    advisory: parseOsvAdvisory({
      id,
      modified: new Date().toISOString(),
      aliases,
      summary: `${name} issue`,
      details: 'x',
      severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
      affected: [
        {
          package: { ecosystem: 'npm', name },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
        },
      ],
    }),
  });
  await importAdvisories([advisory(ghsa, [cve], lib), advisory(osvId, [osvAlias], other)]);
}

async function productWithScannedSbom(api: Api, name: string, content: string) {
  const product = (await api.post('/api/products', { name, slug: uniqueSlug('portfolio') })).body.data as {
    id: string;
  };
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: `1.${randomInt(1, 1000)}.0` }))
    .body.data as { id: string; version: string };
  const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content });
  expect(upload.status).toBe(201);
  const sbomId = upload.body.data.id as string;
  expect((await api.post('/api/cve-scan', { sbomId })).status).toBe(202);
  return { productId: product.id, releaseId: release.id, version: release.version, sbomId };
}

interface FindingRow {
  advisory_id: string;
  cve_id: string;
  component_name: string;
  product_id: string;
  release_id: string;
  release_version: string;
  sbom_id: string;
  disposition?: unknown;
}
interface UsageRow {
  product: { id: string; name: string };
  release: { id: string; version: string; status: string };
  sbom_id: string;
  versions: string[];
  matched_by: string;
}

let teamA: Awaited<ReturnType<typeof createTeamWithKey>>;
let teamB: Awaited<ReturnType<typeof createTeamWithKey>>;
let first: Awaited<ReturnType<typeof productWithScannedSbom>>;
let second: Awaited<ReturnType<typeof productWithScannedSbom>>;

beforeAll(async () => {
  await importCorpus();
  [teamA, teamB] = await Promise.all([createTeamWithKey(), createTeamWithKey()]);
  first = await productWithScannedSbom(
    teamA.api,
    'Portfolio One',
    cycloneDxSbom([
      { name: lib, version: '1.0.0', purl: `pkg:npm/${lib}@1.0.0` },
      { name: other, version: '1.0.0', purl: `pkg:npm/${other}@1.0.0` },
    ]),
  );
  second = await productWithScannedSbom(
    teamA.api,
    'Portfolio Two',
    cycloneDxSbom([
      { name: lib, version: '1.5.0', purl: `pkg:npm/${lib}@1.5.0` },
      { name: nameOnly, version: '3.0.0' },
    ]),
  );
  // Team B ships the same package: none of it may reach team A's answers, nor A's reach B's.
  await productWithScannedSbom(
    teamB.api,
    'Elsewhere',
    cycloneDxSbom([{ name: lib, version: '1.0.0', purl: `pkg:npm/${lib}@1.0.0` }]),
  );
}, 120_000);

const findings = async (api: Api, query: string) => {
  const response = await api.get(`/api/vulnerabilities?${query}`);
  expect(response.status).toBe(200);
  return response.body as { data: FindingRow[]; meta: { total: number }; advisory_ids: string[] };
};
const usage = async (api: Api, query: string) => {
  const response = await api.get(`/api/components?${query}`);
  expect(response.status).toBe(200);
  return response.body as { data: UsageRow[]; meta: { total: number } };
};

describe('GET /api/vulnerabilities?advisory=', () => {
  it('finds the findings of an advisory across products and releases by its id or its CVE', async () => {
    for (const id of [ghsa, cve]) {
      const page = await findings(teamA.api, `advisory=${id}`);
      expect(page.meta.total).toBe(2);
      const rows = page.data.map((row) => [row.product_id, row.release_id, row.release_version, row.sbom_id]);
      expect(rows).toEqual(
        expect.arrayContaining([
          [first.productId, first.releaseId, first.version, first.sbomId],
          [second.productId, second.releaseId, second.version, second.sbomId],
        ]),
      );
      expect(page.data.every((row) => row.advisory_id === ghsa && row.cve_id === cve)).toBe(true);
    }
  });

  it('finds an advisory by an alias only the corpus knows (the alias index)', async () => {
    const page = await findings(teamA.api, `advisory=${osvAlias}`);
    expect(page.data.map((row) => [row.advisory_id, row.sbom_id])).toEqual([[osvId, first.sbomId]]);
    expect(page.advisory_ids).toEqual(expect.arrayContaining([osvAlias, osvId]));
  });

  it('filters by product, state, KEV and severity, and shows each finding its decision', async () => {
    expect((await findings(teamA.api, `advisory=${cve}&productId=${second.productId}`)).data).toEqual([
      expect.objectContaining({ sbom_id: second.sbomId }),
    ]);
    expect((await findings(teamA.api, `advisory=${cve}&state=resolved`)).meta.total).toBe(0);
    expect((await findings(teamA.api, `advisory=${cve}&state=all`)).meta.total).toBe(2);
    expect((await findings(teamA.api, `advisory=${cve}&kev=true`)).meta.total).toBe(0);
    expect((await findings(teamA.api, `advisory=${cve}&severity=critical`)).meta.total).toBe(2);
    expect((await findings(teamA.api, `advisory=${cve}&severity=low,medium`)).meta.total).toBe(0);
    const [row] = (await findings(teamA.api, `advisory=${cve}&productId=${first.productId}`)).data as (FindingRow & {
      id: string;
    })[];
    const decided = await teamA.api.post('/api/dispositions', {
      vulnerabilityId: row!.id,
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
    });
    expect(decided.status).toBe(201);
    const [after] = (await findings(teamA.api, `advisory=${cve}&productId=${first.productId}`)).data;
    expect(after?.disposition).toMatchObject({ status: 'not_affected' });
  });

  it('pages', async () => {
    const page = await teamA.api.get(`/api/vulnerabilities?advisory=${cve}&perPage=1&page=2`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta).toMatchObject({ page: 2, perPage: 1, total: 2, hasPrevPage: true, hasNextPage: false });
  });
});

describe('GET /api/components', () => {
  it('finds every release and SBOM with a package by purl, with the versions found', async () => {
    const page = await usage(teamA.api, `purl=${encodeURIComponent(`pkg:npm/${lib}`)}`);
    expect(page.data.map((row) => [row.product.id, row.release.id, row.sbom_id, row.versions, row.matched_by])).toEqual(
      [
        [first.productId, first.releaseId, first.sbomId, ['1.0.0'], 'package'],
        [second.productId, second.releaseId, second.sbomId, ['1.5.0'], 'package'],
      ],
    );
    expect(page.data[0]).toMatchObject({
      product: { name: 'Portfolio One' },
      release: { version: first.version, status: 'active' },
    });
  });

  it('keeps only SBOMs holding the purl version when it has one', async () => {
    const page = await usage(teamA.api, `purl=${encodeURIComponent(`pkg:npm/${lib}@1.5.0`)}`);
    expect(page.data.map((row) => row.sbom_id)).toEqual([second.sbomId]);
    expect((await usage(teamA.api, `purl=${encodeURIComponent(`pkg:npm/${lib}@9.9.9`)}`)).meta.total).toBe(0);
  });

  it('finds by ecosystem and name, including components known only by name', async () => {
    expect((await usage(teamA.api, `ecosystem=npm&name=${lib}`)).data.map((row) => row.sbom_id)).toEqual([
      first.sbomId,
      second.sbomId,
    ]);
    const bare = await usage(teamA.api, `ecosystem=npm&name=${nameOnly}`);
    expect(bare.data.map((row) => [row.sbom_id, row.versions, row.matched_by])).toEqual([
      [second.sbomId, ['3.0.0'], 'name'],
    ]);
    expect((await usage(teamA.api, `ecosystem=PyPI&name=${lib}`)).meta.total).toBe(0);
  });
});

describe('another team', () => {
  it("sees only its own SBOMs and findings, never team A's", async () => {
    const components = await usage(teamB.api, `purl=${encodeURIComponent(`pkg:npm/${lib}`)}`);
    expect(components.meta.total).toBe(1);
    expect(components.data.map((row) => row.sbom_id)).not.toEqual(
      expect.arrayContaining([first.sbomId, second.sbomId]),
    );
    const found = await findings(teamB.api, `advisory=${cve}`);
    expect(found.data.every((row) => ![first.productId, second.productId].includes(row.product_id))).toBe(true);
    expect((await findings(teamB.api, `advisory=${osvAlias}`)).meta.total).toBe(0);
  });
});

describe('bad queries', () => {
  it.each([
    ['/api/components', 'purl or ecosystem+name missing'],
    [`/api/components?purl=pkg:npm/${lib}&ecosystem=npm&name=${lib}`, 'both forms'],
    [`/api/components?ecosystem=npm`, 'ecosystem without name'],
    [`/api/components?name=${lib}`, 'name without ecosystem'],
    [`/api/components?ecosystem=cobol&name=${lib}`, 'unknown ecosystem'],
    ['/api/components?purl=not-a-purl', 'not a purl'],
    ['/api/components?purl=pkg:generic/thing@1', 'purl of no ecosystem'],
    ['/api/vulnerabilities', 'advisory missing'],
    ['/api/vulnerabilities?advisory=%27%20OR%201%3D1', 'not an advisory id'],
    [`/api/vulnerabilities?advisory=${cve}&state=closed`, 'unknown state'],
    [`/api/vulnerabilities?advisory=${cve}&productId=nope`, 'product id not a uuid'],
  ])('%s (%s) is 422', async (path) => {
    const response = await teamA.api.get(path);
    expect(response.status).toBe(422);
    expect(response.body.error.details.length).toBeGreaterThan(0);
  });

  it('needs vulnerabilities:read', async () => {
    const { api } = await createTeamWithKey(['products:read']);
    expect((await api.get(`/api/components?ecosystem=npm&name=${lib}`)).status).toBe(403);
    expect((await api.get(`/api/vulnerabilities?advisory=${cve}`)).status).toBe(403);
  });
});
