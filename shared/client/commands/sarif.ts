/**
 * `vexdesk sarif --sbom ID | --release ID`: the findings as SARIF 2.1.0 for GitHub code scanning
 * (docs/sarif.md), on stdout or into `--output FILE`. Every page of the list is read (and each item
 * checked against the API's own item schema by loadFindings).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Log } from 'sarif';
import type { ApiClient } from '../api-client';
import { loadFindings, type Target, type WaitOptions } from '../findings';
import { toSarif } from '../sarif';
import type { Output } from '../output';

declare const VEXDESK_VERSION: string | undefined;

function toolVersion(): string {
  // The bundle defines it at build time; from source the package's own version is not at hand.
  return typeof VEXDESK_VERSION === 'string' ? VEXDESK_VERSION : '0.0.0-source';
}

export async function sarifLog(api: ApiClient, target: Target, sbomPath: string, options: WaitOptions): Promise<Log> {
  const findings = await loadFindings(api, target, options);
  return toSarif({ findings, sbomPath, serviceUrl: api.baseUrl, toolVersion: toolVersion() });
}

export function writeSarif(log: Log, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(log, null, 2)}\n`);
}

export async function sarif(
  api: ApiClient,
  target: Target,
  input: { sbomPath: string; output?: string },
  options: WaitOptions,
  out: Output,
): Promise<void> {
  const log = await sarifLog(api, target, input.sbomPath, options);
  const results = log.runs[0]?.results?.length ?? 0;
  if (input.output === undefined) {
    process.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
    out.progress(`${results} SARIF results`);
    return;
  }
  writeSarif(log, input.output);
  out.progress(`wrote ${results} SARIF results to ${input.output}`);
}
