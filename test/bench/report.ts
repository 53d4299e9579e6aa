/**
 * Compliance report and audit export bench. Run: `npx tsx test/bench/report.ts`
 * or `npm run bench -- report`. Starts its own embedded engines in a temporary directory.
 *
 * - Render only: 10,000 components + 2,000 findings from the sample fixtures.
 * - Assembly from the stores: a release whose SBOM (10,000 components, uploaded through
 *   the SBOM service) a synthetic corpus makes 2,000 findings of, scanned for real, half
 *   of them disposed, with a published VEX document; timed through the report service and
 *   through the Lambda handler.
 * - Audit export: 10,000 audit items of a fresh team, through the export service and the
 *   handler; and 10,001 items (the truncated path).
 * Medians of several runs after one warm-up.
 */
import { randomUUID } from 'node:crypto';
import { printReport } from './main';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { routes } from '../../shared/service/http/routes';
import { lambdaContext, proxyEvent } from '../../shared/local/api-gateway-events';
import type { AuthorizerContext } from '../../shared/service/http/authorizer-context';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { startEmbeddedEngines } from '../../shared/local/engines';
import { median, ms } from './stats';

const COMPONENTS = 10_000;
const FINDINGS = 2_000;
const AUDIT_ROWS = 10_000;
const RUNS = 5;

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Median wall time of `runs` calls after one warm-up call (template compilation and JIT belong to cold start). */
async function timed<T>(runs: number, call: () => Promise<T> | T): Promise<{ medianMs: number; last: T }> {
  let last = await call();
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    last = await call();
    samples.push(performance.now() - started);
  }
  return { medianMs: median(samples), last };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** A GET as API Gateway hands it to a group Lambda after the authorizer accepted the key. */
function apiEvent(
  target: { resource: string; path: string },
  authorizer: AuthorizerContext,
  parameters: { path?: Record<string, string>; query?: Record<string, string> },
): APIGatewayProxyEvent {
  const route = routes.find((candidate) => candidate.method === 'GET' && candidate.path === target.resource);
  if (!route) throw new Error(`no GET route ${target.resource}`);
  const query = parameters.query ?? {};
  const url = new URL(target.path, 'http://localhost');
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const event = proxyEvent({
    client: { httpVersion: '1.1', host: 'localhost', sourceIp: '127.0.0.1', userAgent: 'bench' },
    url,
    method: 'GET',
    requestId: randomUUID(),
    route,
    headers: {},
    multiValueHeaders: {},
    multiValueQuery: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: parameters.path ?? null,
    body: Buffer.alloc(0),
  });
  event.requestContext.authorizer = { ...authorizer, principalId: authorizer.serviceAccountId, integrationLatency: 0 };
  return event;
}

/** Team, release, corpus, SBOM, scan, dispositions and a published VEX document, all through the services. */
async function seedRelease() {
  const { Teams } = await import('../../shared/service/identity/teams');
  const { OPERATOR_ACTOR } = await import('../../shared/service/identity/actor');
  const { Products } = await import('../../shared/service/products/products');
  const { Releases } = await import('../../shared/service/releases/releases');
  const { Sboms } = await import('../../shared/service/sboms/sboms');
  const { Scans } = await import('../../shared/service/scans/scans');
  const { Dispositions } = await import('../../shared/service/dispositions/dispositions');
  const { VexDocuments } = await import('../../shared/service/vex/vex-documents');
  const { VexWorkflow } = await import('../../shared/service/vex/vex-workflow');
  const { findingStore } = await import('../../shared/service/scans/finding-store');
  const { importAdvisories } = await import('../../shared/service/corpus/import');
  const { parseOsvAdvisory } = await import('../../shared/service/corpus/parse/osv');

  const actor = { id: randomUUID(), name: 'api_bench', email: null, kind: 'service_account' as const };
  const team = await Teams.create('Bench team', OPERATOR_ACTOR);
  const product = await Products.create(team.id, actor, {
    name: 'Bench Router',
    slug: 'bench-router',
    vendor: 'Bench Networks',
    description: 'Edge router firmware.',
  });
  const release = await Releases.create(team.id, actor, product.id, { version: '4.2.0', status: 'active' });

  // Every fifth component is vulnerable: 2,000 synthetic advisories, one per vulnerable package.
  const vulnerable = (index: number) => index % (COMPONENTS / FINDINGS) === 0;
  const name = (index: number) => `bench-${vulnerable(index) ? 'vuln' : 'free'}-${index}`;
  const vectors = [
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  ];
  const advisoryIndexes = Array.from({ length: COMPONENTS }, (_, index) => index).filter(vulnerable);
  await importAdvisories(
    advisoryIndexes.map((index, n) => ({
      source: 'bench',
      advisory: parseOsvAdvisory({
        id: `BENCH-REPORT-${index}`,
        modified: '2026-01-01T00:00:00Z',
        aliases: [`CVE-2091-${String(100_000 + index)}`],
        summary: `Synthetic issue ${index}`,
        details: 'Bench',
        severity: [{ type: 'CVSS_V3', score: vectors[n % vectors.length] }],
        affected: [
          {
            package: { ecosystem: 'npm', name: name(index) },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    })),
  );
  const components = Array.from({ length: COMPONENTS }, (_, index) => ({
    type: 'library',
    'bom-ref': `c${index}`,
    name: name(index),
    version: '1.0.0',
    purl: `pkg:npm/${name(index)}@1.0.0`,
    licenses: [{ license: { id: 'MIT' } }],
  }));
  const content = JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'bench', version: '1' }] } },
    components,
  });
  const sbom = await Sboms.upload(team.id, actor, { releaseId: release.id, content, fileName: 'bench.cdx.json' });
  const scan = await Scans.run(team.id, actor, sbom.id);
  if (scan.findingCount !== FINDINGS)
    throw new Error(`expected ${FINDINGS} findings, the scan found ${scan.findingCount}`);

  const findings = await findingStore.listByRelease(team.id, product.id, release.id);
  const half = findings.slice(0, FINDINGS / 2).map((finding) => finding.id);
  for (let offset = 0; offset < half.length; offset += 500) {
    await Dispositions.batch(team.id, actor, {
      vulnerabilityIds: half.slice(offset, offset + 500),
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      detail: 'Not reachable in this build.',
    });
  }
  const { record } = await VexDocuments.create(team.id, actor, release.id, {
    format: 'cyclonedx_vex',
    author: 'Bench PSIRT',
  });
  await VexWorkflow.submit(team.id, actor, record.id, 'bench');
  await VexWorkflow.approve(team.id, actor, record.id, 'bench');
  await VexWorkflow.publish(team.id, actor, record.id, 'bench');
  return { teamId: team.id, releaseId: release.id, actor };
}

async function seedAudit(teamId: string, rows: number, from = Date.UTC(2025, 0, 1)) {
  const { auditItem } = await import('../../shared/service/audit/audit-log');
  const { batchWrite } = await import('../../shared/service/data/table-client');
  const actor = { id: randomUUID(), name: 'api_bench', email: null, kind: 'service_account' as const };
  const items = Array.from({ length: rows }, (_, index) =>
    auditItem(
      teamId,
      actor,
      {
        action: index % 3 === 0 ? 'create' : 'update',
        entityType: 'product',
        entityId: randomUUID(),
        entityName: `Product ${index}, "quoted"`,
        changes: {
          name: { from: `Product ${index}`, to: `Product ${index}, "quoted"` },
          description: { from: null, to: 'Line one\nline two' },
        },
      },
      new Date(from + index * 1000).toISOString(),
    ),
  );
  // Eight writers in parallel: the embedded engine is the bottleneck, not the client.
  await Promise.all(
    Array.from({ length: 8 }, (_, lane) => batchWrite(items.filter((_item, index) => index % 8 === lane))),
  );
}

export async function benchReport(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-report-'));
  process.env.LOG_LEVEL = 'ERROR'; // access logs per handler call would dominate the output
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const engines = await startEmbeddedEngines({ dataDir, inMemory: true });
  applyLocalEnvironment(engines);
  const lines: string[] = ['Compliance report and audit export bench (embedded engines in this process):'];
  try {
    // Imported after the environment is set: configuration and the logger are read at first use.
    const { ensureLocalResources } = await import('../../shared/local/resources');
    const { buildSampleReportInput } = await import('../../shared/service/compliance/fixtures');
    const { renderComplianceReport } = await import('../../shared/service/compliance/report');
    const { ComplianceReports } = await import('../../shared/service/compliance/report-data');
    const { AuditExports } = await import('../../shared/service/audit/audit-export');
    const { handler: complianceHandler } = await import('../../functions/compliance/handler');
    const { handler: auditHandler } = await import('../../functions/audit/handler');
    const { destroyClients } = await import('../../shared/service/aws-clients');
    await ensureLocalResources();

    try {
      const sample = buildSampleReportInput({ components: COMPONENTS, findings: FINDINGS });
      const render = await timed(9, () => renderComplianceReport(sample));
      lines.push(
        `  render only (fixtures, ${COMPONENTS} components / ${FINDINGS} findings): median ${ms(render.medianMs)}, ${mib(Buffer.byteLength(render.last.html))} HTML`,
      );

      const seedStarted = performance.now();
      const { teamId, releaseId } = await seedRelease();
      lines.push(
        `  seeded a release through the services (upload, real scan, 1,000 dispositions, published VEX) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
      );
      const assemble = await timed(RUNS, () => ComplianceReports.assemble(teamId, releaseId));
      const input = assemble.last;
      lines.push(
        `  assembly from the stores: median ${ms(assemble.medianMs)} (${input.components?.length ?? 0} components, ${input.findings?.length ?? 0} findings, ${input.vexDocuments?.length ?? 0} VEX document)`,
      );
      const generate = await timed(RUNS, () => ComplianceReports.render(teamId, releaseId));
      lines.push(
        `  assembly + render (service): median ${ms(generate.medianMs)}, ${mib(Buffer.byteLength(generate.last.html))} HTML`,
      );
      const reportAuth: AuthorizerContext = {
        teamId,
        keyId: randomUUID(),
        serviceAccountId: randomUUID(),
        actorName: 'api_bench',
        scopes: 'compliance:read audit:read',
      };
      const reportRoute = {
        resource: '/api/compliance/{releaseId}/report',
        path: `/api/compliance/${releaseId}/report`,
      };
      const viaReportHandler = await timed(RUNS, () =>
        (complianceHandler as LambdaHandler)(
          apiEvent(reportRoute, reportAuth, { path: { releaseId } }),
          lambdaContext('compliance'),
        ),
      );
      if (viaReportHandler.last.statusCode !== 200)
        throw new Error(
          `report handler answered ${viaReportHandler.last.statusCode}: ${viaReportHandler.last.body.slice(0, 300)}`,
        );
      lines.push(
        `  GET /api/compliance/{releaseId}/report through the Lambda handler: median ${ms(viaReportHandler.medianMs)}, ${mib(Buffer.byteLength(viaReportHandler.last.body))} body (Lambda limit 6 MB)`,
      );

      // A team id with no other audit entries, so the export holds exactly the seeded rows.
      const auditTeam = randomUUID();
      await seedAudit(auditTeam, AUDIT_ROWS);
      const exported = await timed(RUNS, () => AuditExports.csv(auditTeam, { accountId: auditTeam }));
      if (exported.last.rows !== AUDIT_ROWS || exported.last.truncated)
        throw new Error(`export returned ${exported.last.rows} rows, truncated ${String(exported.last.truncated)}`);
      lines.push(
        `  audit export, ${AUDIT_ROWS.toLocaleString('en')} rows (service): median ${ms(exported.medianMs)}, ${mib(Buffer.byteLength(exported.last.csv))} CSV`,
      );
      const auditAuth: AuthorizerContext = { ...reportAuth, teamId: auditTeam };
      const exportRoute = { resource: '/api/audit/export', path: '/api/audit/export' };
      const viaAuditHandler = await timed(RUNS, () =>
        (auditHandler as LambdaHandler)(
          apiEvent(exportRoute, auditAuth, { query: { accountId: auditTeam } }),
          lambdaContext('audit'),
        ),
      );
      if (viaAuditHandler.last.statusCode !== 200)
        throw new Error(
          `export handler answered ${viaAuditHandler.last.statusCode}: ${viaAuditHandler.last.body.slice(0, 300)}`,
        );
      lines.push(
        `  GET /api/audit/export through the Lambda handler: median ${ms(viaAuditHandler.medianMs)}, X-Truncated ${String(viaAuditHandler.last.headers?.['X-Truncated'])}`,
      );
      await seedAudit(auditTeam, 1, Date.UTC(2026, 0, 1));
      const truncated = await timed(RUNS, () => AuditExports.csv(auditTeam, { accountId: auditTeam }));
      lines.push(
        `  audit export, ${(AUDIT_ROWS + 1).toLocaleString('en')} matching (cut at ${AUDIT_ROWS.toLocaleString('en')}, truncated ${String(truncated.last.truncated)}): median ${ms(truncated.medianMs)}`,
      );
      const filtered = await timed(RUNS, () =>
        AuditExports.csv(auditTeam, {
          accountId: auditTeam,
          entityType: 'product',
          action: 'create',
          startDate: '2025-01-01T00:00:00Z',
          endDate: '2025-01-02T00:00:00Z',
        }),
      );
      lines.push(
        `  audit export filtered by entityType + action + one day (gsi3, sort-key range): median ${ms(filtered.medianMs)}, ${filtered.last.rows} rows`,
      );
      lines.push(`  bench process RSS ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB (engines included)`);
      return lines.join('\n');
    } finally {
      destroyClients();
    }
  } finally {
    await engines.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchReport());
}
