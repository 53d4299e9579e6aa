/**
 * The shape of a checklist item and the evidence phrases several frameworks share. An item's
 * status is derived from facts the service holds; what the service cannot see is "manual
 * attestation required", never "met".
 */
import { formatDateTime, plural } from '../format';
import type { ReportFacts } from '../report-facts';

export type EvidenceStatus = 'met' | 'partial' | 'not_evidenced' | 'manual';

export interface Assessment {
  ref: string;
  title: string;
  status: EvidenceStatus;
  evidence: string[];
}

export function sbomEvidence(f: ReportFacts): string[] {
  if (f.sbomCount === 0) return ['No SBOM uploaded for this release.'];
  return f.sbomLabels.map((label) => `SBOM present (${label}).`);
}

export function scanEvidence(f: ReportFacts): string {
  if (!f.scanned) return 'No vulnerability scan recorded for this release.';
  const when = f.lastScannedAt ? `last scan ${formatDateTime(f.lastScannedAt)}` : 'scan time not recorded';
  return `Component vulnerability scan: ${plural(f.findingCount, 'finding')} (${when}).`;
}

export function dispositionEvidence(f: ReportFacts): string {
  return (
    `Fixed ${f.fixed}; not affected ${f.notAffected}; affected with a remediation response ${f.affectedRemediating}; ` +
    `affected, risk accepted (will/can not fix) ${f.affectedAcceptedRisk}; affected without response ${f.affectedWithoutResponse}; ` +
    `under investigation ${f.underInvestigation}; no disposition ${f.undisposed}.`
  );
}

export function slaEvidence(f: ReportFacts): string {
  const s = f.sla;
  return (
    `SLA: ${s.met} met, ${s.breached} breached (${s.breachedOpen} overdue, ${s.breachedClosedLate} closed late), ` +
    `${s.atRisk} at risk, ${s.openWithin} open within the window.`
  );
}

export function disclosureEvidence(f: ReportFacts): string[] {
  const latest = f.latestDisclosure;
  if (!latest) return ['No public VEX disclosure published for this release.'];
  const lines = [
    `${plural(f.disclosures.length, 'public disclosure')}; latest ${latest.publicSlug} (${latest.format}, version ${latest.documentVersion}) published ${formatDateTime(latest.publishedAt)}${latest.signed ? ', signed' : ', unsigned'}.`,
  ];
  if (f.changedSinceDisclosure > 0) {
    lines.push(
      `${plural(f.changedSinceDisclosure, 'disposition')} changed after the latest disclosure; it does not reflect them.`,
    );
  }
  return lines;
}

export function integrityEvidence(f: ReportFacts): string[] {
  const lines: string[] = [];
  if (f.sbomCount > 0)
    lines.push(`SHA-256 of ${plural(f.sbomCount, 'SBOM file')} recorded (download responses carry X-Content-Hash).`);
  if (f.disclosures.length > 0) {
    lines.push(
      `${plural(f.disclosures.length, 'immutable disclosure snapshot')} with SHA-256 content hash, ${f.signedDisclosures} HMAC-SHA256 signed, verifiable at the public verify URL.`,
    );
  }
  return lines;
}

export const MANUAL = (ref: string, title: string, ...evidence: string[]): Assessment => ({
  ref,
  title,
  status: 'manual',
  evidence: evidence.length > 0 ? evidence : ['Not visible to the service; requires a signed attestation.'],
});
