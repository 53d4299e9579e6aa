/**
 * Every Lambda of the service, as data: entry file, sizing and resource
 * access. The stack creates one Lambda function per entry and the bundle bench
 * builds the same list, so adding a function is one line here.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_GROUPS, type EndpointGroup } from '../shared/service/http/routes';
import { effectiveGroupAccess, type ResourceAccess } from './permissions';
import { AUTHORIZER_ACCESS, CORPUS_REFRESH_ACCESS, NOTIFY_WORKER_ACCESS, SCAN_WORKER_ACCESS } from './worker-access';
import { executionAccessOfTenantGroup, isTenantGroup, tenantAccessOf, type TenantAccess } from './tenant-access';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export type FunctionRole =
  | { kind: 'endpoint-group'; group: EndpointGroup }
  | { kind: 'authorizer' }
  | { kind: 'scan-worker' }
  | { kind: 'corpus-refresh' }
  | { kind: 'notify-worker' };

export interface FunctionSpec {
  /** kebab-case name; also the folder under functions/. */
  name: string;
  /** Absolute path of the TypeScript entry exporting `handler`. */
  entry: string;
  role: FunctionRole;
  memoryMb: number;
  timeoutSeconds: number;
  /** /tmp size; Lambda's default is 512 MB. */
  ephemeralStorageMb?: number;
  /** The execution role's grants. */
  access: ResourceAccess;
  /** Functions acting for a caller's team: the grants of the tenant role they assume per team (lib/tenant-access.ts). */
  tenant?: TenantAccess;
}

/**
 * API Gateway REST APIs stop waiting for an integration after 29 s, so an
 * endpoint Lambda allowed to run longer would only burn money after the
 * caller already got a 504.
 */
const API_INTEGRATION_TIMEOUT_SECONDS = 29;

/** Default endpoint sizing: 512 MB on arm64 keeps cold starts short for CRUD handlers. */
const ENDPOINT_DEFAULTS = { memoryMb: 512, timeoutSeconds: 10 };

/**
 * Groups that parse or scan SBOMs of up to 10 MB (spec "Limits") or write
 * 500-item disposition batches: more memory (and with it CPU) and the longest
 * timeout the API allows.
 */
const HEAVY_GROUPS: Partial<Record<EndpointGroup, { memoryMb: number; timeoutSeconds: number }>> = {
  sboms: { memoryMb: 2048, timeoutSeconds: API_INTEGRATION_TIMEOUT_SECONDS },
  scans: { memoryMb: 2048, timeoutSeconds: API_INTEGRATION_TIMEOUT_SECONDS },
  // A 500-item batch is up to 32 transactions (docs/architecture/background-work.md "Write guarantees"); a batch
  // cut off by the timeout is finished by a later read or the sweep, but it should rarely need to be.
  dispositions: { memoryMb: 1024, timeoutSeconds: API_INTEGRATION_TIMEOUT_SECONDS },
};

function entryOf(name: string): string {
  return fileURLToPath(new URL(`../functions/${name}/handler.ts`, import.meta.url));
}

function endpointFunction(group: EndpointGroup): FunctionSpec {
  return {
    name: group,
    entry: entryOf(group),
    role: { kind: 'endpoint-group', group },
    ...(HEAVY_GROUPS[group] ?? ENDPOINT_DEFAULTS),
    ...(isTenantGroup(group)
      ? { access: executionAccessOfTenantGroup(group), tenant: tenantAccessOf(group) }
      : { access: effectiveGroupAccess(group) }),
  };
}

/**
 * Background functions whose handlers land in later work. Each is part of the
 * stack only once its entry file exists, so `cdk synth` works before and after
 * they are written without editing the stack (lib/function-code.ts fails synth
 * on a missing entry).
 */
export const BACKGROUND_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'scan-worker',
    entry: entryOf('scan-worker'),
    role: { kind: 'scan-worker' },
    memoryMb: 2048,
    timeoutSeconds: 300,
    access: SCAN_WORKER_ACCESS,
  },
  {
    name: 'corpus-refresh',
    entry: entryOf('corpus-refresh'),
    role: { kind: 'corpus-refresh' },
    memoryMb: 2048,
    // Imports run in units of IMPORT_BUDGET_MS (shared/service/corpus/import-units.ts); the continuation schedule resumes them.
    timeoutSeconds: 300,
    // The feeds are downloaded to /tmp and checked whole before any import (npm's all.zip alone is over 200 MB).
    ephemeralStorageMb: 4096,
    access: CORPUS_REFRESH_ACCESS,
  },
  {
    name: 'notify-worker',
    entry: entryOf('notify-worker'),
    role: { kind: 'notify-worker' },
    memoryMb: 512,
    // A run makes attempts of at most 10 s each, 64 at a time; the next scheduled run picks up what is left.
    timeoutSeconds: 300,
    access: NOTIFY_WORKER_ACCESS,
  },
];

export function functionCatalog(): FunctionSpec[] {
  return [
    ...ENDPOINT_GROUPS.map(endpointFunction),
    {
      name: 'authorizer',
      entry: entryOf('authorizer'),
      role: { kind: 'authorizer' },
      memoryMb: 512,
      // One GetItem by key hash; a stuck authorizer should fail fast, not hold the request.
      timeoutSeconds: 5,
      access: AUTHORIZER_ACCESS,
    },
    ...BACKGROUND_FUNCTIONS.filter((spec) => existsSync(spec.entry)),
  ];
}
