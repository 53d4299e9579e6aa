/**
 * The AWS calls the functions' code really made during the integration run
 * (recorded by shared/service/aws-call-log.ts in every server the tests start), and the
 * committed manifest the infra tests check each function's IAM policy against
 * (test/infra/observed-aws-calls.json, docs/architecture/request-path.md "Permissions that
 * match the code").
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { AwsCallRecord } from '../../shared/service/aws-call-log';

const ROOT = resolve(import.meta.dirname, '../..');
export const AWS_CALL_MANIFEST = join(ROOT, 'test/infra/observed-aws-calls.json');
/** The one command that rewrites the manifest from a full integration run. */
export const REGENERATE_AWS_CALLS = 'UPDATE_AWS_CALLS=1 npm run test:api';

const FIELDS = ['function', 'action', 'resource', 'leadingKey', 'command', 'prefix'] as const;

function recordKey(record: AwsCallRecord): string {
  return FIELDS.map((field) => record[field] ?? '').join('\u0000');
}

/** Sorted and de-duplicated, fields in a fixed order: the same calls always give the same file. */
export function normaliseRecords(records: AwsCallRecord[]): AwsCallRecord[] {
  const unique = new Map<string, AwsCallRecord>();
  for (const record of records) {
    unique.set(recordKey(record), {
      function: record.function,
      command: record.command,
      action: record.action,
      resource: record.resource,
      ...(record.leadingKey !== undefined ? { leadingKey: record.leadingKey } : {}),
      ...(record.prefix !== undefined ? { prefix: record.prefix } : {}),
    });
  }
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, record]) => record);
}

export function readAwsCallManifest(): AwsCallRecord[] {
  return existsSync(AWS_CALL_MANIFEST) ? (JSON.parse(readFileSync(AWS_CALL_MANIFEST, 'utf8')) as AwsCallRecord[]) : [];
}

/** One record per line, so a regenerated manifest diffs line by line. */
export function writeAwsCallManifest(records: AwsCallRecord[]): void {
  const lines = normaliseRecords(records).map((record) => `  ${JSON.stringify(record)}`);
  writeFileSync(AWS_CALL_MANIFEST, `[\n${lines.join(',\n')}\n]\n`);
}

/** Every line every server wrote into the run's log directory. */
export function readObservedAwsCalls(logDir: string): AwsCallRecord[] {
  return readdirSync(logDir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(logDir, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AwsCallRecord);
}

export interface ManifestCheck {
  /** Observed calls the manifest lacks: the run fails on these. */
  missing: AwsCallRecord[];
  /** Manifest entries this run did not make (normal for a partial run). */
  unobserved: AwsCallRecord[];
}

export function compareWithManifest(observed: AwsCallRecord[], manifest: AwsCallRecord[]): ManifestCheck {
  const observedKeys = new Set(normaliseRecords(observed).map(recordKey));
  const manifestKeys = new Set(normaliseRecords(manifest).map(recordKey));
  return {
    missing: normaliseRecords(observed).filter((record) => !manifestKeys.has(recordKey(record))),
    unobserved: normaliseRecords(manifest).filter((record) => !observedKeys.has(recordKey(record))),
  };
}

/**
 * Called by the integration global teardown. A full run with UPDATE_AWS_CALLS=1
 * rewrites the manifest from what it observed (a filtered run adds to it, since
 * it saw only part of the calls); otherwise a call missing from the manifest
 * fails the run, naming the command that regenerates it.
 */
export function settleAwsCallManifest(logDir: string, options: { update: boolean; partialRun: boolean }): string {
  const observed = readObservedAwsCalls(logDir);
  const manifest = readAwsCallManifest();
  const file = relative(ROOT, AWS_CALL_MANIFEST);
  if (options.update) {
    writeAwsCallManifest(options.partialRun ? [...manifest, ...observed] : observed);
    return `${file}: ${options.partialRun ? 'added the calls of this partial run' : 'rewritten from this run'}; run the infra tests (npm run test:infra) to check the IAM policies against it.`;
  }
  const { missing, unobserved } = compareWithManifest(observed, manifest);
  if (missing.length > 0) {
    throw new Error(
      [
        `The functions made ${missing.length} AWS call(s) that ${file} does not list, so no infra test checks their IAM permission:`,
        ...missing.map((record) => `  ${JSON.stringify(record)}`),
        `Regenerate the manifest with: ${REGENERATE_AWS_CALLS}`,
        'then run npm run test:infra and grant what the infra permission test reports missing (lib/permissions.ts).',
      ].join('\n'),
    );
  }
  return options.partialRun || unobserved.length === 0
    ? `${file}: every AWS call of this run is listed.`
    : `${file}: every AWS call of this run is listed; ${unobserved.length} listed call(s) did not occur in this full run (regenerate with ${REGENERATE_AWS_CALLS} if the code no longer makes them).`;
}
