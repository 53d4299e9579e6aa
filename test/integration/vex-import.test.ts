/** VEX imports in each format: matching statements applied with provenance, the rest reported with reasons; re-imports idempotent. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { queryAll } from '../../shared/service/data/table-client';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { createTeamWithKey } from '../support/factories';
import {
  byOutcome,
  ids,
  importVex,
  newProduct,
  releaseWithSbom,
  sha256,
  vexExample,
  type StatementResult,
  type Vulnerability,
} from '../support/vex-imports';

describe('POST /api/releases/{releaseId}/vex-imports', () => {
  it("imports Trivy's published OpenVEX: applies matching statements with provenance and reports the rest with reasons", async () => {
    // Arrange
    const { api, key } = await createTeamWithKey();
    const product = await newProduct(api);
    const { release, vulnerabilities } = await releaseWithSbom(api, product.id, '1.0.0');
    const bytes = vexExample('openvex/trivy.openvex.json');

    // Act
    const response = await importVex(key, release.id, bytes);

    // Assert: statements 6 and 19 (GO-2023-2102, GO-2024-3333: x/net) and 18 (GO-2024-3321: x/crypto) meet findings; versionless purls name any version.
    expect(response.status).toBe(200);
    const data = response.body.data as {
      format: string;
      author: string;
      documentSha256: string;
      summary: Record<string, number>;
      statements: StatementResult[];
    };
    expect(data.format).toBe('openvex');
    expect(data.author).toBe('Aqua Security');
    expect(data.documentSha256).toBe(sha256(bytes));
    const at = (index: number) => data.statements.find((s) => s.pointer === `/statements/${index}/products/0`)!;
    expect(at(6)).toMatchObject({
      vulnerability: 'GO-2023-2102',
      outcome: 'applied',
      status: 'not_affected',
      reason: null,
    });
    expect(at(18)).toMatchObject({ vulnerability: 'GO-2024-3321', outcome: 'applied' });
    // x/net v0.15.0 is past GO-2023-1988's fix (0.13.0): the package is in the release, that vulnerability is not.
    expect(at(11)).toMatchObject({
      vulnerability: 'GO-2023-1988',
      outcome: 'unmatched',
      reason: 'no_matching_vulnerability',
    });
    expect(at(0)).toMatchObject({
      vulnerability: 'GO-2024-2575',
      outcome: 'unmatched',
      reason: 'no_matching_component',
    });
    expect(at(19)).toMatchObject({ vulnerability: 'GO-2024-3333', outcome: 'applied' });
    expect(data.summary).toMatchObject({ statements: 21, applied: 3, unchanged: 0, unmatched: 18 });

    const listed = await vulnerabilities();
    for (const [statement, module] of [
      [at(6), 'golang.org/x/net'],
      [at(19), 'golang.org/x/net'],
      [at(18), 'golang.org/x/crypto'],
    ] as const) {
      const expected = listed.filter(
        (v) => v.component_purl?.startsWith(`pkg:golang/${module}@`) && ids(v).includes(statement.vulnerability),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect([...statement.vulnerabilityIds].sort()).toEqual(expected.map((v) => v.id).sort());
      for (const v of expected) {
        expect(v.disposition).toMatchObject({
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
        });
        const disposition = (await api.get(`/api/dispositions/${v.disposition!.id}`)).body.data;
        expect(disposition.impactStatement).toBe("Govulncheck determined that the vulnerable code isn't called");
        expect(disposition.imported_from).toMatchObject({
          document_sha256: sha256(bytes),
          author: 'Aqua Security',
          format: 'openvex',
        });
      }
    }
    const untouched = listed.filter((v) => !data.statements.some((s) => s.vulnerabilityIds.includes(v.id)));
    expect(untouched.length).toBeGreaterThan(0);
    expect(untouched.every((v) => v.disposition === undefined)).toBe(true);
  });

  it('a second identical import is all unchanged and writes nothing; the import is audited once each time', async () => {
    const { api, key, teamId } = await createTeamWithKey();
    const product = await newProduct(api);
    const { release } = await releaseWithSbom(api, product.id, '1.0.0');
    const bytes = vexExample('openvex/trivy.openvex.json');
    const first = await importVex(key, release.id, bytes);
    expect(first.status).toBe(200);
    const before = await queryAll(keys.releaseChildrenPrefix(teamId, product.id, release.id));

    const second = await importVex(key, release.id, gzipSync(bytes), 'application/json', {
      'Content-Encoding': 'gzip',
    });

    expect(second.status).toBe(200);
    expect(second.body.data.documentSha256).toBe(sha256(bytes));
    expect(second.body.data.summary).toMatchObject({
      applied: 0,
      unchanged: first.body.data.summary.applied,
      dispositionsWritten: 0,
    });
    const after = await queryAll(keys.releaseChildrenPrefix(teamId, product.id, release.id));
    expect(after.filter((item) => item.entity === 'Disposition')).toEqual(
      before.filter((item) => item.entity === 'Disposition'),
    );
    const imports = (await readAuditLog(teamId)).filter((entry) => entry.action === 'vex_import');
    expect(imports).toHaveLength(2);
    expect(imports.map((entry) => entry.changes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          documentSha256: sha256(bytes),
          format: 'openvex',
          applied: 3,
          dispositionsWritten: first.body.data.summary.dispositionsWritten,
        }),
        expect.objectContaining({ documentSha256: sha256(bytes), applied: 0, dispositionsWritten: 0 }),
      ]),
    );
  });

  it.each(['cyclonedx_vex', 'openvex', 'csaf'] as const)(
    'carries the decisions of a %s document this service generated into another release of the product',
    async (format) => {
      // Arrange: release 1.0 triaged (not_affected, affected with a response, fixed; the rest untriaged), its VEX generated.
      const { api, key } = await createTeamWithKey();
      // Carry-over would hand 1.1 the decisions of 1.0 at its scan (same package versions), leaving the import nothing to apply.
      expect((await api.put('/api/settings', { carryOver: 'off' })).status).toBe(200);
      const product = await newProduct(api);
      const source = await releaseWithSbom(api, product.id, '1.0.0');
      const sourceFindings = await source.vulnerabilities();
      const decide = (v: Vulnerability) => {
        if (v.component_purl?.includes('log4j-core'))
          return {
            status: 'not_affected',
            justification: 'vulnerable_code_not_in_execute_path',
            impactStatement: 'JNDI lookups are disabled',
          };
        if (v.component_purl?.includes('x/net'))
          return { status: 'affected', response: 'update', actionStatement: 'Upgrade golang.org/x/net to 0.33.0' };
        if (v.component_purl?.includes('x/crypto')) return { status: 'fixed' };
        return undefined;
      };
      const decided = sourceFindings.filter((v) => decide(v) !== undefined);
      expect(new Set(decided.map((v) => decide(v)!.status))).toEqual(new Set(['not_affected', 'affected', 'fixed']));
      for (const v of decided)
        expect((await api.post('/api/dispositions', { vulnerabilityId: v.id, ...decide(v) })).status).toBe(201);
      const generated = await api.post(`/api/releases/${source.release.id}/vex`, { format, author: 'Release team' });
      expect(generated.status).toBe(201);
      const bytes = Buffer.from(JSON.stringify(generated.body.data.content));
      const target = await releaseWithSbom(api, product.id, '1.1.0');

      // Act
      const first = await importVex(key, target.release.id, bytes);
      const second = await importVex(key, target.release.id, bytes);

      // Assert: every triaged decision of 1.0 is now 1.1's, with provenance; OpenVEX has no response field, so its `affected` cannot be one.
      expect(first.status).toBe(200);
      const statements = first.body.data.statements as StatementResult[];
      const targetFindings = await target.vulnerabilities();
      const twin = (v: Vulnerability) => {
        const found = sourceFindings.find(
          (s) => s.component_purl === v.component_purl && s.advisory_id === v.advisory_id,
        );
        if (!found) throw new Error(`1.1's finding ${v.advisory_id} of ${v.component_purl} has no twin in 1.0's list`);
        return found;
      };
      for (const v of targetFindings) {
        const decision = decide(twin(v));
        if (format === 'csaf' && !/^CVE-\d{4}-\d{4,}$/.test(v.cve_id)) {
          // CSAF states only advisories with a CVE id (Trivy dereferences `cve`; docs/vex-mapping.md §10): nothing to import.
          expect(v.disposition).toBeUndefined();
        } else if (decision === undefined) {
          // Untriaged findings are published as under investigation, and imported as such.
          expect(v.disposition?.status).toBe('under_investigation');
        } else if (format === 'openvex' && decision.status === 'affected') {
          expect(v.disposition).toBeUndefined();
          expect(
            statements.some(
              (s) =>
                s.outcome === 'unmatched' && s.reason === 'invalid_for_status' && s.vulnerabilityIds.includes(v.id),
            ),
          ).toBe(true);
        } else {
          expect(v.disposition).toMatchObject({
            status: decision.status,
            justification: decision.justification ?? null,
            response: decision.response ?? null,
          });
          const stored = (await api.get(`/api/dispositions/${v.disposition!.id}`)).body.data;
          expect(stored.imported_from).toMatchObject({
            document_sha256: sha256(bytes),
            format,
            author: format === 'cyclonedx_vex' || format === 'openvex' ? 'Release team' : 'ACME',
          });
          if (decision.status === 'affected' && format !== 'openvex')
            expect(stored.actionStatement).toBe('Upgrade golang.org/x/net to 0.33.0');
        }
      }
      expect(byOutcome(statements, 'applied').length).toBeGreaterThan(0);
      expect(second.status).toBe(200);
      expect(second.body.data.summary).toMatchObject({
        applied: 0,
        dispositionsWritten: 0,
        unchanged: first.body.data.summary.applied,
      });
    },
  );

  it('reports statements naming no package and documents of each format it cannot match (CycloneDX and CSAF examples)', async () => {
    const { api, key } = await createTeamWithKey();
    const product = await newProduct(api);
    const { release, vulnerabilities } = await releaseWithSbom(api, product.id, '1.0.0');

    // CISA's case 1 says product-ABC is not affected by Log4Shell; product-ABC is a whole product without a purl.
    const cdx = await importVex(
      key,
      release.id,
      vexExample('cyclonedx/bom-examples_CISA-Case-1_vex-not_affected.json'),
      'application/vnd.cyclonedx+json',
    );
    const csaf = await importVex(key, release.id, vexExample('csaf/oasis_2022-evd-uc-01-na-001.json'));

    expect(cdx.status).toBe(200);
    expect(cdx.body.data.statements).toEqual([
      expect.objectContaining({
        pointer: '/vulnerabilities/0/affects/0',
        product: 'product-ABC',
        outcome: 'unmatched',
        reason: 'no_matching_component',
      }),
    ]);
    expect(csaf.status).toBe(200);
    expect(csaf.body.data).toMatchObject({ format: 'csaf', author: 'Example Company ProductCERT' });
    expect(csaf.body.data.statements).toEqual([
      expect.objectContaining({
        pointer: '/vulnerabilities/0/product_status/known_not_affected/0',
        product: 'CSAFPID-0001',
        outcome: 'unmatched',
        reason: 'no_matching_component',
      }),
    ]);
    expect((await vulnerabilities()).every((v) => v.disposition === undefined)).toBe(true);
  });
});
