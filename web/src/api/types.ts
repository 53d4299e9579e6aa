/**
 * Shapes of the answers docs/openapi.json leaves open (`additionalProperties`): VEX documents,
 * approvals, dispositions with history, team settings and disclosures, as the handlers write them
 * (spec "VEX document", "Approval record", "Disclosure"; docs/api.md, docs/disclosure-verification.md).
 */
import type { components } from '../../../shared/api/schema';

// From the schema, not from client.ts: statements.ts (and its unit test, compiled without the DOM library) imports this module.
type Schemas = components['schemas'];

export type Finding = Schemas['ReleaseVulnerability'];
export type DispositionStatus = Schemas['BatchDisposition']['status'];
export type Justification = NonNullable<Schemas['BatchDisposition']['justification']>;
export type ResponseAction = NonNullable<Schemas['BatchDisposition']['response']>;
export type VexFormat = Schemas['CreateVexDocument']['format'];

export interface PersonRef {
  id: string;
  name: string;
}

export interface VexDocument {
  id: string;
  releaseId: string;
  format: VexFormat;
  workflow_status: 'draft' | 'submitted' | 'approved' | 'published';
  author: string | null;
  version: number;
  content_hash: string;
  finding_count: number;
  created_at: string;
  updated_at: string;
  submitted_by: PersonRef | null;
  approved_at: string | null;
  published_at: string | null;
  disclosure: { id: string; public_slug: string; links: { self: string; raw: string } } | null;
  content?: unknown;
}

export interface ApprovalRecord {
  id: string;
  action: 'submit' | 'approve' | 'reject' | 'publish';
  actor_id: string;
  actor_name?: string;
  comment: string;
  created_at: string;
  document_version?: number;
}

export interface DispositionChange {
  changeId: string;
  at: string;
  actor: { id: string; name: string; email: string | null };
  changes: Record<string, { from: unknown; to: unknown }>;
}

export interface DispositionDetail {
  id: string;
  vulnerabilityId: string;
  status: DispositionStatus;
  justification: Justification | null;
  response: ResponseAction | null;
  detail: string | null;
  decided_at: string | null;
  updated_by: PersonRef | null;
  decision_state: string;
  history: DispositionChange[];
}

export interface SlaPolicy {
  critical: number;
  high: number;
  medium: number;
  low: number;
  kev: number;
  atRiskRatio: number;
}

export interface TeamSettings {
  requireDistinctApprover: boolean;
  slaPolicy: SlaPolicy;
  hideInformational: boolean;
  carryOver: 'off' | 'same_version' | 'any_version';
  /** Browser sessions end after this long without a request, and this long after sign-in however active. */
  sessionTimeouts: { idleMinutes: number; absoluteMinutes: number };
}

export interface DisclosureLinks {
  self: string;
  raw: string;
  verify?: string;
  signature?: string;
  sha256?: string;
  sha512?: string;
  attestation?: string;
  public_keys?: string;
}

export interface Disclosure {
  id: string;
  document_id: string;
  version: number;
  format: VexFormat;
  public_slug: string;
  content_hash: string;
  signed: boolean;
  published_at: string;
  product: { name: string; vendor: string | null };
  release: { version: string };
  links: DisclosureLinks;
  public_key_fingerprint?: string | null;
  content: unknown;
}

export interface DisclosureVerification {
  content_hash_valid: boolean;
  signed: boolean;
  signature_valid: boolean | null;
  signature_algorithm?: string | null;
  public_key_signature?: {
    signed: boolean;
    signature_valid: boolean | null;
    algorithm?: string;
    key_fingerprint?: string | null;
    key_status?: string | null;
  };
  verified_at: string;
}

export const STATUSES: DispositionStatus[] = ['under_investigation', 'affected', 'not_affected', 'fixed'];
export const JUSTIFICATIONS: Justification[] = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
];
export const RESPONSES: ResponseAction[] = [
  'can_not_fix',
  'will_not_fix',
  'update',
  'rollback',
  'workaround_available',
];

/** `not_affected` → `not affected`, for people. */
export function label(value: string): string {
  return value.replaceAll('_', ' ');
}
