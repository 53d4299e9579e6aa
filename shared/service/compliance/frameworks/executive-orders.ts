/** US Executive Orders 14028 and 14144: SBOM, automated vulnerability checks, VEX, disclosure, provenance, attestation. */
import { percent, plural } from '../format';
import type { ReportFacts } from '../report-facts';
import {
  disclosureEvidence,
  dispositionEvidence,
  integrityEvidence,
  MANUAL,
  sbomEvidence,
  scanEvidence,
  slaEvidence,
  type Assessment,
  type EvidenceStatus,
} from './evidence';

export function assessExecutiveOrders(f: ReportFacts): Assessment[] {
  const coverage =
    f.inventoryCount > 0
      ? `Component data: ${percent(f.withVersion, f.inventoryCount)} with a version, ${percent(f.withPurl, f.inventoryCount)} with a package URL, ${percent(f.withLicense, f.inventoryCount)} with a licence (of ${plural(f.inventoryCount, 'component')} in the inventory).`
      : 'No component inventory recorded.';
  const complete = f.inventoryCount > 0 && f.withVersion === f.inventoryCount && f.withPurl === f.inventoryCount;

  let vexStatus: EvidenceStatus = 'not_evidenced';
  if (f.latestDisclosure) vexStatus = f.changedSinceDisclosure > 0 ? 'partial' : 'met';
  else if (f.vexCount > 0) vexStatus = 'partial';
  const vexEvidence =
    f.vexCount === 0
      ? ['No VEX document generated for this release.']
      : [
          `${plural(f.vexCount, 'VEX document')}: ${f.vexByStatus.draft} draft, ${f.vexByStatus.submitted} submitted, ${f.vexByStatus.approved} approved, ${f.vexByStatus.published} published.`,
          ...disclosureEvidence(f),
        ];

  let scanStatus: EvidenceStatus = 'not_evidenced';
  if (f.scanned) scanStatus = f.notFinal === 0 && f.sla.breached === 0 ? 'met' : 'partial';

  const integrity = integrityEvidence(f);
  return [
    {
      ref: 'EO 14028 §4(e)(vii)',
      title: 'Provide a Software Bill of Materials (SBOM) for the product (NTIA minimum elements).',
      status: f.sbomCount === 0 ? 'not_evidenced' : complete ? 'met' : 'partial',
      evidence: [
        ...sbomEvidence(f),
        ...(f.sbomCount > 0
          ? [coverage, 'Supplier names and dependency relationships are not checked by this report.']
          : []),
      ],
    },
    {
      ref: 'EO 14028 §4(e)(iv)',
      title: 'Employ automated tools that check for known and potential vulnerabilities and remediate them.',
      status: scanStatus,
      evidence:
        f.scanned && f.findingCount > 0 ? [scanEvidence(f), dispositionEvidence(f), slaEvidence(f)] : [scanEvidence(f)],
    },
    {
      ref: 'VEX (CISA guidance, EO 14028 §4(e)(vi)–(vii))',
      title:
        'Communicate the exploitability status of vulnerabilities in the SBOM (Vulnerability Exploitability eXchange).',
      status: vexStatus,
      evidence: vexEvidence,
    },
    {
      ref: 'EO 14028 §4(e)(viii)',
      title: 'Participate in a vulnerability disclosure program.',
      status: f.latestDisclosure ? 'partial' : 'manual',
      evidence: [
        ...(f.latestDisclosure ? disclosureEvidence(f) : []),
        'The vulnerability disclosure program (policy, intake channel) requires manual attestation.',
      ],
    },
    {
      ref: 'EO 14028 §4(e)(vi), (x)',
      title: 'Maintain provenance data and ensure the integrity of software and its artifacts.',
      status: integrity.length > 0 ? 'partial' : 'manual',
      evidence: [
        ...integrity,
        'Integrity and provenance of the release artifacts themselves (builds, packages) require manual attestation.',
      ],
    },
    MANUAL(
      'EO 14028 §4(e)(ix); EO 14144 §2',
      'Secure software development attestation (CISA Secure Software Development Attestation Form, per OMB M-22-18/M-23-16; EO 14144 as amended by EO 14306).',
      'Must be signed by the producer; the NIST SSDF checklist below lists the practices it covers.',
    ),
    MANUAL('EO 14028 §4(e)(i)', 'Secure software development environments (separation, MFA, logging, encryption).'),
  ];
}
