/**
 * POST /api/releases/{releaseId}/vex-imports: a supplier's (or our own)
 * CycloneDX, OpenVEX or CSAF document becomes dispositions of the release's findings.
 * The document is validated against its official schema, its statements are matched to
 * findings by package identity and vulnerability id (aliases included), and every write
 * goes through the disposition batch path (disposition-batches.ts): one all-or-nothing,
 * crash-recoverable write that a release lock stops and undoes. Rules: docs/vex-import.md.
 */
import { createHash } from 'node:crypto';
import type { AuditEvent } from '../../audit/audit-log';
import {
  packageIdentity,
  packageIdentityWithoutVersion,
  decisionIndex,
  decisionKey,
} from '../../dispositions/decision-identity';
import { dispositionRuleViolations, Dispositions } from '../../dispositions/dispositions';
import { DispositionBatches } from '../../dispositions/disposition-batches';
import type { Disposition, ImportedFrom } from '../../dispositions/disposition-store';
import type { DispositionPatch } from '../../dispositions/disposition-writes';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  ReleaseLockedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../errors';
import type { Actor } from '../../identity/actor';
import { releaseLockedError } from '../../releases/release-lock';
import { releaseStore } from '../../releases/release-store';
import { findingStore, type Finding } from '../../scans/finding-store';
import type { VexFormat } from '../../schemas/vex';
import type { Decision } from '../../dispositions/vocabulary';
import { detectFormat, readStatements, type ImportStatement } from '../statements';

export type ImportOutcome = 'applied' | 'unchanged' | 'unmatched';
export type UnmatchedReason =
  | 'no_matching_component'
  | 'no_matching_vulnerability'
  | 'invalid_for_status'
  | 'superseded';

export interface ImportStatementResult {
  pointer: string;
  vulnerability: string;
  product: string;
  status: Decision['status'] | null;
  outcome: ImportOutcome;
  reason: UnmatchedReason | null;
  message: string | null;
  /** The release's findings ("vulnerabilities") the statement matched. */
  vulnerabilityIds: string[];
}

export interface VexImportResult {
  releaseId: string;
  format: VexFormat;
  documentSha256: string;
  author: string | null;
  importedAt: string;
  summary: { statements: number; applied: number; unchanged: number; unmatched: number; dispositionsWritten: number };
  statements: ImportStatementResult[];
}

/**
 * Dispositions one import may write. Each write is a chunk member of one batch whose intent
 * (one DynamoDB item, at most 400 KB) lists them all; 2,000 keeps it far below that.
 */
export const MAX_IMPORT_WRITES = 2000;
/** Distinct decisions are stored in the intent too; their texts (up to 3 × 5000 characters each) must fit beside the targets. */
const MAX_INTENT_PATCH_BYTES = 300 * 1024;

const XML_MEDIA_TYPES = new Set(['application/xml', 'text/xml', 'application/vnd.cyclonedx+xml']);

/** JSON media types (any `+json` suffix, RFC 6839); no Content-Type reads as JSON too, as curl's `--data-binary` sends. */
function assertJsonMediaType(contentType: string | undefined): void {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json')) return;
  if (XML_MEDIA_TYPES.has(mediaType)) {
    throw new UnsupportedMediaTypeError(
      'CycloneDX XML is not imported; send the JSON form of the document (cyclonedx-cli convert)',
    );
  }
  throw new UnsupportedMediaTypeError(
    `Content-Type ${mediaType} is not a VEX document; send CycloneDX, OpenVEX or CSAF JSON`,
  );
}

function parseDocument(bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0)
    throw new ValidationError('A VEX document is required as the request body', [
      { path: '/', message: 'empty body', code: 'required' },
    ]);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new BadRequestError('Request body is not valid JSON');
  }
}

const sameIds = (ids: string[]) => new Set(ids.map((id) => id.trim().toUpperCase()));

/** The release's current findings by package: exact (purl without qualifiers, at its version) and any version. */
function packageIndex(findings: Finding[]) {
  const exact = new Map<string, Finding[]>();
  const anyVersion = new Map<string, Finding[]>();
  const add = (map: Map<string, Finding[]>, key: string, finding: Finding) => {
    const list = map.get(key);
    if (list) list.push(finding);
    else map.set(key, [finding]);
  };
  for (const finding of findings) {
    add(exact, packageIdentity(finding), finding);
    add(anyVersion, packageIdentityWithoutVersion(finding), finding);
  }
  /** A document purl with a version names that version only; one without a version names every version (OpenVEX, Trivy). */
  return (purl: string): Finding[] => {
    const subject = { componentPurl: purl, componentName: '', componentVersion: null };
    const versioned = packageIdentity(subject) !== packageIdentityWithoutVersion(subject);
    return (
      (versioned ? exact.get(packageIdentity(subject)) : anyVersion.get(packageIdentityWithoutVersion(subject))) ?? []
    );
  };
}

function patchOf(decision: Decision): DispositionPatch {
  return {
    status: decision.status,
    justification: decision.justification,
    response: decision.response,
    detail: decision.detail,
    actionStatement: decision.actionStatement,
    impactStatement: decision.impactStatement,
  };
}

function unchanged(existing: Disposition | undefined, patch: DispositionPatch): boolean {
  if (!existing) return false;
  return (Object.keys(patch) as Array<keyof DispositionPatch>).every((field) => existing[field] === patch[field]);
}

const timeOf = (statement: ImportStatement): number => {
  const time = statement.timestamp === null ? Number.NaN : Date.parse(statement.timestamp);
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
};

export const VexImports = {
  async import(
    teamId: string,
    actor: Actor,
    releaseId: string,
    request: { body: Buffer | undefined; contentType: string | undefined },
  ): Promise<VexImportResult> {
    const resolved = await releaseStore.resolve(teamId, releaseId);
    if (!resolved) throw new NotFoundError('Release');
    const { product, release } = resolved;
    if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);

    assertJsonMediaType(request.contentType);
    const document = parseDocument(request.body);
    const format = detectFormat(document);
    if (format === null) {
      throw new ValidationError('Not a CycloneDX, OpenVEX or CSAF document', [
        {
          path: '/',
          message: 'needs bomFormat "CycloneDX", an OpenVEX @context or a CSAF document.csaf_version',
          code: 'unknown_format',
        },
      ]);
    }
    // The validators and their ~1 MB of schemas load on the first import, not at the function's cold start.
    const { schemaViolations } = await import('./schema-validation');
    const violations = schemaViolations(format, document);
    if (violations.length > 0)
      throw new ValidationError(`The document is not valid against the ${format} schema`, violations);

    const parsed = readStatements(format, document);
    const documentSha256 = createHash('sha256')
      .update(request.body ?? Buffer.alloc(0))
      .digest('hex');
    const importedAt = new Date().toISOString();

    const [allFindings, dispositions] = await Promise.all([
      findingStore.listByRelease(teamId, product.id, release.id),
      Dispositions.listByRelease(teamId, product.id, release.id),
    ]);
    const findings = allFindings.filter((finding) => !finding.noLongerDetected);
    const findingsOf = packageIndex(findings);
    const decisionOf = decisionIndex(dispositions);

    // Match every statement; then the latest statement on a decision (package and advisory, whichever SBOM
    // of the release its findings are in) decides it (document order breaks ties).
    const matches = parsed.statements.map((statement) => {
      const onPackage = [...new Set(statement.purls.flatMap(findingsOf))];
      const ids = sameIds(statement.vulnerabilityIds);
      const matched = onPackage.filter((finding) =>
        [finding.advisoryId, finding.cveId, ...finding.aliases].some((id) => ids.has(id.toUpperCase())),
      );
      return { statement, onPackage, matched };
    });
    const winner = new Map<string, number>();
    const order = matches
      .map((_, index) => index)
      .sort((a, b) => timeOf(parsed.statements[a]!) - timeOf(parsed.statements[b]!) || a - b);
    for (const index of order) {
      const { statement, matched } = matches[index]!;
      if (statement.decision === null || statement.problem !== null) continue;
      for (const finding of matched) winner.set(decisionKey(finding), index);
    }

    const writes: Array<{ finding: Finding; patch: DispositionPatch }> = [];
    const results: ImportStatementResult[] = matches.map(({ statement, onPackage, matched }, index) => {
      const base = {
        pointer: statement.pointer,
        vulnerability: statement.vulnerability,
        product: statement.product,
        status: statement.decision?.status ?? null,
        vulnerabilityIds: matched.map((f) => f.id),
      };
      const unmatched = (reason: UnmatchedReason, message: string): ImportStatementResult => ({
        ...base,
        outcome: 'unmatched',
        reason,
        message,
      });
      if (onPackage.length === 0) {
        return unmatched(
          'no_matching_component',
          statement.purls.length === 0
            ? 'the product reference names no package (purl)'
            : `no finding of this release is in ${statement.purls.join(', ')}`,
        );
      }
      if (matched.length === 0)
        return unmatched(
          'no_matching_vulnerability',
          `no finding of the package is ${statement.vulnerabilityIds.join(' / ')}`,
        );
      if (statement.decision === null || statement.problem !== null)
        return unmatched('invalid_for_status', statement.problem ?? 'no status');
      const patch = patchOf(statement.decision);
      // The rules the API enforces on every disposition (justification for not_affected, response for affected).
      const problems = dispositionRuleViolations({
        status: statement.decision.status,
        justification: statement.decision.justification,
        response: statement.decision.response,
      });
      if (problems.length > 0) return unmatched('invalid_for_status', problems.map((p) => p.message).join('; '));
      const own = matched.filter((finding) => winner.get(decisionKey(finding)) === index);
      if (own.length === 0)
        return unmatched('superseded', 'a later statement of the document decides the same findings');
      const changed = own.filter((finding) => !unchanged(decisionOf(finding), patch));
      for (const finding of changed) writes.push({ finding, patch });
      return { ...base, outcome: changed.length > 0 ? 'applied' : 'unchanged', reason: null, message: null };
    });

    if (writes.length > MAX_IMPORT_WRITES)
      throw new PayloadTooLargeError(
        `The document would write ${writes.length} dispositions; at most ${MAX_IMPORT_WRITES} per import (split the document)`,
      );
    const distinctPatches = new Set(writes.map((write) => JSON.stringify(write.patch)));
    if ([...distinctPatches].reduce((bytes, patch) => bytes + Buffer.byteLength(patch), 0) > MAX_INTENT_PATCH_BYTES) {
      throw new PayloadTooLargeError(
        'The document has too many distinct decision texts for one import (split the document)',
      );
    }

    const count = (outcome: ImportOutcome) => results.filter((result) => result.outcome === outcome).length;
    const summary = {
      statements: results.length,
      applied: count('applied'),
      unchanged: count('unchanged'),
      unmatched: count('unmatched'),
      dispositionsWritten: writes.length,
    };
    const importedFrom: ImportedFrom = { documentSha256, author: parsed.author, format, importedAt };
    const completionAudit: AuditEvent = {
      action: 'vex_import',
      entityType: 'release',
      entityId: release.id,
      entityName: `${product.name} ${release.version}`,
      changes: { documentSha256, format, author: parsed.author, ...summary },
    };
    const outcome = await DispositionBatches.runEach(teamId, actor, { writes, importedFrom, completionAudit });
    if (outcome.state === 'failed') {
      if (outcome.reason === 'release_locked') throw new ReleaseLockedError();
      throw new ConflictError(
        'The dispositions kept changing under the import; nothing was written, retry',
        'concurrent_modification',
      );
    }
    return {
      releaseId: release.id,
      format,
      documentSha256,
      author: parsed.author,
      importedAt,
      summary,
      statements: results,
    };
  },
};
