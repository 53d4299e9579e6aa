/**
 * The watch bench (`npm run bench -- watch`; docs/watch.md "Cost"): a portfolio of 200 SBOMs × 1,000
 * components (200,000 components, 40 products, 5 releases each), then a corpus delta of 500 new
 * advisories for packages some of those SBOMs contain, imported and applied the way the refresh does.
 * Prints the import + re-evaluation time beside its target, the DynamoDB items read and written and
 * the S3 objects read and written, counted at the SDK client in this process (where the import and the
 * re-evaluation run), per affected component and per affected SBOM; then a second, smaller delta to
 * show the counts follow the affected components, not the portfolio; then the internet-scale model of
 * docs/watch.md evaluated with the measured per-item costs.
 *
 * WATCH_BENCH_SBOMS and WATCH_BENCH_COMPONENTS shrink the portfolio for a quick run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { dynamo, dynamoItems, s3ClientOf } from '../../shared/service/aws-clients';
import { benchApi } from './scan';
import { ms } from './stats';
import { syntheticSbom } from './synthetic-corpus';

const SBOMS = Number(process.env.WATCH_BENCH_SBOMS ?? 200);
const COMPONENTS = Number(process.env.WATCH_BENCH_COMPONENTS ?? 1_000);
const RELEASES_PER_PRODUCT = 5;
const DELTA_RECORDS = 500;
const SMALL_DELTA_RECORDS = 50;
const TARGET_MS = 30_000;
/** The synthetic SBOMs' vulnerable packages are `bench-vuln-<id>` for ids below this (test/bench/synthetic-corpus.ts). */
const VULNERABLE_PACKAGES = 25_000;

interface Counts {
  itemsRead: number;
  itemsWritten: number;
  objectsRead: number;
  objectsWritten: number;
}

const counts: Counts = { itemsRead: 0, itemsWritten: 0, objectsRead: 0, objectsWritten: 0 };

type Values = Record<string, unknown>;
const asRecord = (value: unknown): Values => (value !== null && typeof value === 'object' ? (value as Values) : {});

/** Items a DynamoDB call read and wrote, from its input and output (the embedded engine reports no capacity). */
function countDynamo(command: string, input: Values, output: Values): void {
  switch (command) {
    case 'GetItemCommand':
      counts.itemsRead += output.Item ? 1 : 0;
      break;
    case 'BatchGetItemCommand':
      for (const items of Object.values(asRecord(output.Responses))) counts.itemsRead += (items as unknown[]).length;
      break;
    case 'QueryCommand':
      counts.itemsRead += Number(output.Count ?? 0);
      break;
    case 'PutItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      counts.itemsWritten += 1;
      break;
    case 'BatchWriteItemCommand':
      for (const requests of Object.values(asRecord(input.RequestItems)))
        counts.itemsWritten += (requests as unknown[]).length;
      break;
    case 'TransactWriteItemsCommand':
      counts.itemsWritten += ((input.TransactItems as unknown[] | undefined) ?? []).length;
      break;
  }
}

/** Counts what a DynamoDB call read and wrote once it is answered. */
function counting<A extends { input: object }, R extends { output: object }>(
  next: (args: A) => Promise<R>,
  context: { commandName?: string },
) {
  return async (args: A): Promise<R> => {
    const result = await next(args);
    countDynamo(String(context.commandName), asRecord(args.input), asRecord(result.output));
    return result;
  };
}

/** Before the clients' first calls: table-client's resolves its middleware stack once per command (aws-clients.ts). */
function instrument(): void {
  dynamo().middlewareStack.add(counting, { step: 'initialize', name: 'watchBenchCounter' });
  dynamoItems().middlewareStack.add(counting, { step: 'initialize', name: 'watchBenchCounter' });
}

async function instrumentS3(): Promise<void> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  s3ClientOf(S3Client).middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'GetObjectCommand') counts.objectsRead += 1;
      if (context.commandName === 'PutObjectCommand') counts.objectsWritten += 1;
      return result;
    },
    { step: 'initialize', name: 'watchBenchS3Counter' },
  );
}

function snapshot(): Counts {
  return { ...counts };
}

function since(before: Counts): Counts {
  return {
    itemsRead: counts.itemsRead - before.itemsRead,
    itemsWritten: counts.itemsWritten - before.itemsWritten,
    objectsRead: counts.objectsRead - before.objectsRead,
    objectsWritten: counts.objectsWritten - before.objectsWritten,
  };
}

/** New advisories for `records` packages taken from the SBOMs' vulnerable packages (seeds 1..SBOMS). */
function deltaZip(records: number, offset: number, tag: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let index = 0; index < records; index += 1) {
    // Package ids the synthetic SBOMs hold: (component index × 7 + seed) mod 25,000 for every tenth component.
    const seed = 1 + ((index + offset) % SBOMS);
    const component = 10 * ((index * 13 + offset) % Math.ceil(COMPONENTS / 10));
    const packageId = (component * 7 + seed) % VULNERABLE_PACKAGES;
    const record = {
      schema_version: '1.6.0',
      id: `WATCH-${tag}-${index}`,
      modified: new Date().toISOString(),
      aliases: [`CVE-2031-${String(100000 + offset + index)}`],
      summary: `Watch bench advisory ${index}`,
      details: 'Synthetic advisory for the watch bench.',
      severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
      affected: [{ package: packageOf(packageId), ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }] }] }],
    };
    files[`WATCH-${tag}-${index}.json`] = strToU8(JSON.stringify(record));
  }
  return zipSync(files, { level: 1 });
}

/** The ecosystem and name the synthetic SBOMs give a vulnerable package id (same mix as synthetic-corpus.ts). */
function packageOf(id: number): { ecosystem: string; name: string } {
  const mix: [string, number][] = [
    ['npm', 40],
    ['PyPI', 15],
    ['Maven', 20],
    ['Go', 10],
    ['crates.io', 5],
    ['RubyGems', 5],
    ['NuGet', 5],
  ];
  let slot = id % 100;
  let ecosystem = 'npm';
  for (const [name, weight] of mix) {
    if (slot < weight) {
      ecosystem = name;
      break;
    }
    slot -= weight;
  }
  const base = `bench-vuln-${id}`;
  if (ecosystem === 'Maven') return { ecosystem, name: `org.bench:${base}` };
  if (ecosystem === 'Go') return { ecosystem, name: `example.com/bench/${base}` };
  return { ecosystem, name: base };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-watch-'));
  // The server's own poll stays out of the way: this process applies the changes and counts what that costs.
  const server = await startServerProcess(dataDir, {
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
    VEXDESK_WATCH_POLL_MS: '3600000',
  });
  const lines = [
    `Watch bench (embedded engines): ${SBOMS} SBOMs × ${COMPONENTS.toLocaleString('en')} components, ${SBOMS / RELEASES_PER_PRODUCT} products`,
  ];
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    instrument();
    await instrumentS3();
    const { importCorpusFiles } = await import('../../shared/service/corpus/import');
    const { applyCorpusChanges } = await import('../../shared/service/watch/watch');
    const { call } = benchApi(server.baseUrl, dataDir);

    const setupStart = performance.now();
    let productId = '';
    for (let seed = 1; seed <= SBOMS; seed += 1) {
      if ((seed - 1) % RELEASES_PER_PRODUCT === 0)
        productId = String(
          (
            await call('POST', '/api/products', {
              name: `Watch ${seed}`,
              slug: `watch-bench-${String.fromCharCode(97 + (seed % 26))}-${'x'.repeat(1 + Math.floor(seed / 26))}`,
            })
          ).id,
        );
      const releaseId = String(
        (await call('POST', `/api/products/${productId}/releases`, { version: `1.0.${seed}` })).id,
      );
      const sbom = await call('POST', '/api/sboms/upload', { releaseId, content: syntheticSbom(COMPONENTS, seed) });
      for (;;) {
        try {
          await call('POST', '/api/cve-scan', { sbomId: sbom.id });
          break;
        } catch (error) {
          if (!String(error).includes('scan_pending')) throw error;
        }
      }
      if (seed % 50 === 0) process.stderr.write(`  portfolio: ${seed}/${SBOMS} SBOMs uploaded and scanned\n`);
    }
    lines.push(`  portfolio set up in ${ms(performance.now() - setupStart)} (not measured)`);

    const applyDelta = async (records: number, offset: number, tag: string) => {
      const file = join(dataDir, `delta-${tag}.zip`);
      writeFileSync(file, deltaZip(records, offset, tag));
      const before = snapshot();
      const start = performance.now();
      await importCorpusFiles([file]);
      const imported = performance.now() - start;
      const beforeApply = snapshot();
      const summary = await applyCorpusChanges();
      const total = performance.now() - start;
      return { imported, total, summary, all: since(before), reevaluation: since(beforeApply) };
    };

    const big = await applyDelta(DELTA_RECORDS, 0, 'a');
    const small = await applyDelta(SMALL_DELTA_RECORDS, 7_000, 'b');
    const describe = (label: string, run: Awaited<ReturnType<typeof applyDelta>>) => {
      const { summary, reevaluation } = run;
      const perComponent = (value: number) => (value / Math.max(1, summary.affectedComponents)).toFixed(1);
      return [
        `  ${label}: import ${ms(run.imported)}, import + re-evaluation ${ms(run.total)}` +
          (label.startsWith('500')
            ? `  (target <= ${TARGET_MS.toLocaleString('en')} ms)  ${run.total <= TARGET_MS ? 'OK' : 'MISSED'}`
            : ''),
        `    ${summary.sboms} SBOMs named by the index, ${summary.affectedComponents} affected components, ${summary.detected} findings detected, ${summary.events} events`,
        `    re-evaluation: ${reevaluation.itemsRead} items read, ${reevaluation.itemsWritten} written, ${reevaluation.objectsRead} objects read, ${reevaluation.objectsWritten} written` +
          ` (per affected component: ${perComponent(reevaluation.itemsRead)} read, ${perComponent(reevaluation.itemsWritten)} written)`,
      ];
    };
    lines.push(...describe(`${DELTA_RECORDS} records`, big), ...describe(`${SMALL_DELTA_RECORDS} records`, small));
    const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
    lines.push(
      `  ratio ${DELTA_RECORDS}/${SMALL_DELTA_RECORDS}: affected components ${ratio(big.summary.affectedComponents, small.summary.affectedComponents)}, items written ${ratio(big.reevaluation.itemsWritten, small.reevaluation.itemsWritten)}, items read ${ratio(big.reevaluation.itemsRead, small.reevaluation.itemsRead)} (portfolio the same: ${(SBOMS * COMPONENTS).toLocaleString('en')} components)`,
    );

    // docs/watch.md "Cost": the same formula, with this run's measured costs per affected SBOM and component.
    const perSbomObjects =
      (big.reevaluation.objectsRead + big.reevaluation.objectsWritten) / Math.max(1, big.summary.sboms);
    const perComponentReads = big.reevaluation.itemsRead / Math.max(1, big.summary.affectedComponents);
    const perComponentWrites = big.reevaluation.itemsWritten / Math.max(1, big.summary.affectedComponents);
    const model = { records: 2_000, sbomsPerRecord: 3, lodashShare: 0.3, sboms: 10_000, lodashRecords: 2 };
    const affectedSboms = model.records * model.sbomsPerRecord + model.lodashRecords * model.lodashShare * model.sboms;
    const affectedComponents = affectedSboms; // one component per affected SBOM and record, as in the portfolio above
    lines.push(
      `  internet scale (docs/watch.md "Cost": 10,000 teams, 10 million components in ${model.sboms.toLocaleString('en')} SBOMs, ${model.records.toLocaleString('en')} changed records a day, lodash in 30%):`,
      `    affected SBOM evaluations a day: ${affectedSboms.toLocaleString('en')}; DynamoDB reads ${Math.round(affectedComponents * perComponentReads).toLocaleString('en')} items, writes ${Math.round(affectedComponents * perComponentWrites).toLocaleString('en')} items; S3 requests ${Math.round(affectedSboms * perSbomObjects).toLocaleString('en')}`,
    );
  } finally {
    await server.stop();
  }
  console.log(lines.join('\n'));
}

await main();
