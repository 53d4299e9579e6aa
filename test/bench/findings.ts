/**
 * Release findings bench: `GET /api/releases/{id}/vulnerabilities`, first
 * page, for a release of 20,000 findings (two SBOMs of 10,000 vulnerable components each, made by
 * real scans, 2,000 of them with a disposition), through HTTP against the local server. Also prints
 * what the list costs on a process that has not read the release yet (the digests read from S3)
 * and what reading the same findings from the table costs, which is why the digests exist
 * (docs/architecture/lists-and-caches.md "Reading a release's findings").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { median, ms } from './stats';
import { printReport } from './main';

const PER_SBOM = 10_000;
const SBOMS = 2;
const DISPOSED = 2000;
const RUNS = 15;
const TARGET_MS = 150;

function verdict(value: number, target: number): string {
  return value <= target ? 'OK' : 'MISSED';
}

export async function benchFindings(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-findings-'));
  // Throttling emulation off the bench's path: seeding makes many requests.
  const server = await startServerProcess(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
  });
  const lines = [
    `Release findings bench (${(PER_SBOM * SBOMS).toLocaleString('en')} findings in ${SBOMS} SBOMs of one release, ${DISPOSED.toLocaleString('en')} with a disposition; local server in its own process):`,
  ];
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines, server.baseUrl);
    const { importAdvisories } = await import('../../shared/service/corpus/import');
    const { parseOsvAdvisory } = await import('../../shared/service/corpus/parse/osv');
    const { cycloneDxSbom } = await import('../support/seed');
    const { Scans } = await import('../../shared/service/scans/scans');
    const { Dispositions } = await import('../../shared/service/dispositions/dispositions');
    const { OPERATOR_ACTOR } = await import('../../shared/service/identity/actor');
    const { runAsTeam } = await import('../../shared/service/request-context');
    const { apiKey, teamId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      apiKey: string;
      teamId: string;
    };
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- bench reads arbitrary JSON
    };

    const suffix = randomUUID().slice(0, 8);
    const packages = Array.from({ length: PER_SBOM * SBOMS }, (_, index) => ({
      name: `bench-${suffix}-lib${index}`,
      version: '1.0.0',
      index,
    }));
    let t0 = performance.now();
    await importAdvisories(
      packages.map((pkg) => ({
        source: 'bench',
        advisory: parseOsvAdvisory({
          id: `GHSA-bench-${suffix}-${pkg.index}`,
          modified: '2026-01-01T00:00:00Z',
          aliases: [`CVE-2093-${String(100000 + pkg.index)}`],
          summary: `Bench issue ${pkg.index}`,
          details: 'x',
          severity: [
            {
              type: 'CVSS_V3',
              score:
                pkg.index % 2 === 0
                  ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'
                  : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
            },
          ],
          database_specific: { cwe_ids: ['CWE-79'] },
          affected: [
            {
              package: { ecosystem: 'npm', name: pkg.name },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        }),
      })),
    );
    const importMs = performance.now() - t0;

    const product = (await call('POST', '/api/products', { name: 'Findings bench', slug: 'findings-bench' })).body.data;
    const release = (await call('POST', `/api/products/${String(product.id)}/releases`, { version: '1.0.0' })).body
      .data;
    const releaseId = String(release.id);
    t0 = performance.now();
    const sbomIds: string[] = [];
    for (let sbom = 0; sbom < SBOMS; sbom += 1) {
      const slice = packages.slice(sbom * PER_SBOM, (sbom + 1) * PER_SBOM);
      const content = cycloneDxSbom(
        slice.map((pkg) => ({ name: pkg.name, version: pkg.version, purl: `pkg:npm/${pkg.name}@${pkg.version}` })),
      );
      const upload = await call('POST', '/api/sboms/upload', { releaseId, content });
      if (upload.status !== 201)
        throw new Error(`upload: ${upload.status} ${JSON.stringify(upload.body).slice(0, 300)}`);
      const sbomId = String(upload.body.data.id);
      // The real scan, run here against the server's engines: 10,000 findings (20,000 items with
      // their id pointers) take longer than the gateway's 29 s on this shared machine. The server
      // then reads the digests from S3 on its first list, as another Lambda would.
      const scan = await runAsTeam(teamId, () => Scans.run(teamId, OPERATOR_ACTOR, sbomId));
      if (scan.findingCount !== PER_SBOM) throw new Error(`scan found ${scan.findingCount} of ${PER_SBOM}`);
      sbomIds.push(sbomId);
    }
    const scanMs = performance.now() - t0;

    // Dispositions on every fifth finding of the first SBOM.
    const disposed: string[] = [];
    for (let page = 1; disposed.length < DISPOSED; page += 1) {
      const rows = (await call('GET', `/api/sboms/${sbomIds[0]!}/vulnerabilities?perPage=500&page=${page}&sort=cve`))
        .body.data as { id: string }[];
      disposed.push(...rows.filter((_, index) => index % 5 === 0).map((row) => row.id));
    }
    // Applied here, like the scans: a 500-finding batch outlived the gateway's 29 s on the loaded machine.
    for (let start = 0; start < DISPOSED; start += 500) {
      await runAsTeam(teamId, () =>
        Dispositions.batch(teamId, OPERATOR_ACTOR, {
          vulnerabilityIds: disposed.slice(start, start + 500),
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
        }),
      );
    }
    lines.push(
      `  setup: ${packages.length.toLocaleString('en')} advisories imported in ${ms(importMs)}, ${SBOMS} uploads + scans in ${ms(scanMs)}`,
    );

    const timeList = async (query: string) => {
      const durations: number[] = [];
      let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any -- bench reads arbitrary JSON
      for (let run = 0; run < RUNS; run += 1) {
        const started = performance.now();
        const response = await call('GET', `/api/releases/${releaseId}/vulnerabilities${query}`);
        durations.push(performance.now() - started);
        if (response.status !== 200)
          throw new Error(`list ${query}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
        body = response.body;
      }
      return { value: median(durations), first: durations[0]!, body };
    };
    const firstPage = await timeList('');
    if (
      firstPage.body.meta.total !== PER_SBOM * SBOMS ||
      firstPage.body.data.length !== 100 ||
      firstPage.body.summary.notAffected !== DISPOSED
    ) {
      throw new Error(
        `unexpected list: ${JSON.stringify({ meta: firstPage.body.meta, summary: firstPage.body.summary })}`,
      );
    }
    lines.push(
      `  GET /api/releases/{id}/vulnerabilities, ${(PER_SBOM * SBOMS).toLocaleString('en')} findings, first page (100 rows): median ${ms(firstPage.value)} of ${RUNS}  (target ≤ ${TARGET_MS} ms)  ${verdict(firstPage.value, TARGET_MS)}`,
    );
    lines.push(`    the server's first call, its digests read from S3: ${ms(firstPage.first)}`);
    const filtered = await timeList('?severity=critical,high&status=undisposed&sort=-epss&perPage=500');
    lines.push(
      `    filtered and sorted (severity=critical,high&status=undisposed&sort=-epss&perPage=500): median ${ms(filtered.value)}, first call ${ms(filtered.first)} (sorts once per digest set)`,
    );
    const lastPage = await timeList(`?page=${(PER_SBOM * SBOMS) / 100}`);
    lines.push(`    last page (page ${(PER_SBOM * SBOMS) / 100}): median ${ms(lastPage.value)}`);

    // A process that has not read the release yet (another Lambda, or this one after a cold start).
    const { sbomStore } = await import('../../shared/service/sboms/sbom-store');
    const { findingsDigest } = await import('../../shared/service/scans/findings-digest');
    const { findingStore } = await import('../../shared/service/scans/finding-store');
    await runAsTeam(teamId, async () => {
      const sboms = await sbomStore.listByRelease(teamId, String(product.id), releaseId);
      const cold: number[] = [];
      for (let run = 0; run < 3; run += 1) {
        findingsDigest.clearCache();
        const started = performance.now();
        const read = await Promise.all(sboms.map((sbom) => findingsDigest.read(sbom)));
        cold.push(performance.now() - started);
        if (read.flat().length !== PER_SBOM * SBOMS) throw new Error('digest read lost findings');
      }
      const started = performance.now();
      const fromTable = await findingStore.listByRelease(teamId, String(product.id), releaseId);
      const tableMs = performance.now() - started;
      lines.push(
        `    a process without them in memory reads both digests from S3 (get + gunzip + parse) in ${ms(median(cold))}; the same ${fromTable.length.toLocaleString('en')} findings from the table take ${ms(tableMs)}`,
      );
      // The reads every request makes: the release and SBOM items fresh, the dispositions through the
      // per-process cache (one GetItem of the release's dispositions version, then the kept set).
      const { Releases } = await import('../../shared/service/releases/releases');
      const { dispositionCache } = await import('../../shared/service/dispositions/disposition-cache');
      const times: Record<'cached' | 'fresh' | 'items', number[]> = { cached: [], fresh: [], items: [] };
      for (let run = 0; run < 5; run += 1) {
        dispositionCache.clear();
        let started = performance.now();
        await Dispositions.listByRelease(teamId, String(product.id), releaseId);
        times.fresh.push(performance.now() - started);
        started = performance.now();
        await Dispositions.listByRelease(teamId, String(product.id), releaseId);
        times.cached.push(performance.now() - started);
        started = performance.now();
        await Releases.resolve(teamId, releaseId);
        await sbomStore.listByRelease(teamId, String(product.id), releaseId);
        times.items.push(performance.now() - started);
      }
      lines.push(
        `    per request (medians of 5, here against the server's engines): the release's ${DISPOSED.toLocaleString('en')} dispositions ${ms(median(times.cached))} from the cache (version read + kept set), ${ms(median(times.fresh))} when read from the table; the release and SBOM items ${ms(median(times.items))}; the rest is rows, filters, page and HTTP`,
      );
    });
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchFindings());
}
