/**
 * Regulatory and framework checklists (EU CRA, US EO 14028/14144, NIST SSDF) assessed
 * from the report data. Each item's status is derived from facts the service holds;
 * what the service cannot see is "manual attestation required", never "met".
 */
import { formatDateTime, percent, plural } from './format';
import type { ComplianceReportData, ReportFinding, ReportVexDocument } from './model';
import type { SlaPolicy, SlaSummary } from './sla';

export type EvidenceStatus = 'met' | 'partial' | 'not_evidenced' | 'manual';

export interface Assessment {
  ref: string;
  title: string;
  status: EvidenceStatus;
  evidence: string[];
}

export interface SsdfPractice {
  id: string;
  title: string;
  tasks: Assessment[];
}

export interface SsdfGroup {
  id: 'PO' | 'PS' | 'PW' | 'RV';
  title: string;
  practices: SsdfPractice[];
}

export interface FrameworkAssessments {
  craPart2: Assessment[];
  craPart1: Assessment[];
  craReporting: Assessment[];
  executiveOrders: Assessment[];
  ssdf: SsdfGroup[];
}

type PublishedDisclosure = NonNullable<ReportVexDocument['disclosure']> & {
  format: ReportVexDocument['format'];
  documentVersion: number;
};

/** Everything the checklists (and the summary) need, computed once. */
export interface ReportFacts {
  sbomCount: number;
  sbomLabels: string[];
  sbomToolNames: string[];
  declaredComponents: number;
  inventoryCount: number;
  withVersion: number;
  withPurl: number;
  withLicense: number;
  scanned: boolean;
  lastScannedAt: string | null;
  findingCount: number;
  kevCount: number;
  kevUnresolved: number;
  fixed: number;
  notAffected: number;
  underInvestigation: number;
  undisposed: number;
  affectedRemediating: number;
  affectedAcceptedRisk: number;
  affectedWithoutResponse: number;
  /** Not fixed and not not_affected: still present in this release. */
  openKnown: number;
  /** Without a final disposition (see sla.ts). */
  notFinal: number;
  sla: SlaSummary;
  policy: SlaPolicy;
  policyCustomised: boolean;
  vexCount: number;
  vexByStatus: Record<ReportVexDocument['workflowStatus'], number>;
  disclosures: PublishedDisclosure[];
  signedDisclosures: number;
  latestDisclosure: PublishedDisclosure | null;
  /** Findings whose disposition changed after the latest public disclosure. */
  changedSinceDisclosure: number;
}

const REMEDIATING_RESPONSES = new Set(['update', 'rollback', 'workaround_available']);
const ACCEPTED_RISK_RESPONSES = new Set(['will_not_fix', 'can_not_fix']);

export function collectFacts(data: ComplianceReportData, sla: SlaSummary, policy: SlaPolicy): ReportFacts {
  let withVersion = 0;
  let withPurl = 0;
  let withLicense = 0;
  for (const component of data.components) {
    if (component.version) withVersion += 1;
    if (component.purl) withPurl += 1;
    if (component.licenses.length > 0) withLicense += 1;
  }

  const counts = {
    kev: 0,
    kevUnresolved: 0,
    fixed: 0,
    notAffected: 0,
    underInvestigation: 0,
    undisposed: 0,
    remediating: 0,
    accepted: 0,
    noResponse: 0,
  };
  for (const finding of data.findings) {
    const status = finding.disposition?.status;
    const resolved = status === 'fixed' || status === 'not_affected';
    if (finding.isKev) {
      counts.kev += 1;
      if (!resolved) counts.kevUnresolved += 1;
    }
    if (finding.disposition === null) counts.undisposed += 1;
    else if (status === 'fixed') counts.fixed += 1;
    else if (status === 'not_affected') counts.notAffected += 1;
    else if (status === 'under_investigation') counts.underInvestigation += 1;
    else {
      const response = finding.disposition.response;
      if (response === null) counts.noResponse += 1;
      else if (REMEDIATING_RESPONSES.has(response)) counts.remediating += 1;
      else if (ACCEPTED_RISK_RESPONSES.has(response)) counts.accepted += 1;
    }
  }

  const disclosures: PublishedDisclosure[] = data.vexDocuments
    .flatMap((doc) => (doc.disclosure ? [{ ...doc.disclosure, format: doc.format, documentVersion: doc.version }] : []))
    .sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
  const latestDisclosure = disclosures[0] ?? null;
  const latestMs = latestDisclosure ? Date.parse(latestDisclosure.publishedAt) : Number.NaN;
  const changedSinceDisclosure = latestDisclosure
    ? data.findings.filter(
        (f: ReportFinding) => f.disposition !== null && Date.parse(f.disposition.updatedAt) > latestMs,
      ).length
    : 0;

  const scanTimes = data.sboms.flatMap((sbom) => (sbom.scannedAt ? [sbom.scannedAt] : [])).sort();
  const vexByStatus = { draft: 0, submitted: 0, approved: 0, published: 0 };
  for (const doc of data.vexDocuments) vexByStatus[doc.workflowStatus] += 1;

  return {
    sbomCount: data.sboms.length,
    sbomLabels: data.sboms.map(
      (sbom) =>
        `${sbom.format}${sbom.specVersion ? ` ${sbom.specVersion}` : ''}, ${plural(sbom.componentCount, 'component')}`,
    ),
    sbomToolNames: [...new Set(data.sboms.flatMap((sbom) => (sbom.toolName ? [sbom.toolName] : [])))],
    declaredComponents: data.sboms.reduce((sum, sbom) => sum + sbom.componentCount, 0),
    inventoryCount: data.components.length,
    withVersion,
    withPurl,
    withLicense,
    // Findings only exist after a scan, so they prove one even without a recorded scan time.
    scanned: scanTimes.length > 0 || data.findings.length > 0,
    lastScannedAt: scanTimes.at(-1) ?? null,
    findingCount: data.findings.length,
    kevCount: counts.kev,
    kevUnresolved: counts.kevUnresolved,
    fixed: counts.fixed,
    notAffected: counts.notAffected,
    underInvestigation: counts.underInvestigation,
    undisposed: counts.undisposed,
    affectedRemediating: counts.remediating,
    affectedAcceptedRisk: counts.accepted,
    affectedWithoutResponse: counts.noResponse,
    openKnown: data.findings.length - counts.fixed - counts.notAffected,
    notFinal: counts.undisposed + counts.underInvestigation + counts.noResponse,
    sla,
    policy,
    policyCustomised: data.slaPolicy !== null && Object.values(data.slaPolicy).some((value) => value !== undefined),
    vexCount: data.vexDocuments.length,
    vexByStatus,
    disclosures,
    signedDisclosures: disclosures.filter((d) => d.signed).length,
    latestDisclosure,
    changedSinceDisclosure,
  };
}

// ---------------------------------------------------------------------------
// Evidence phrases reused across frameworks
// ---------------------------------------------------------------------------

function sbomEvidence(f: ReportFacts): string[] {
  if (f.sbomCount === 0) return ['No SBOM uploaded for this release.'];
  return f.sbomLabels.map((label) => `SBOM present (${label}).`);
}

function scanEvidence(f: ReportFacts): string {
  if (!f.scanned) return 'No vulnerability scan recorded for this release.';
  const when = f.lastScannedAt ? `last scan ${formatDateTime(f.lastScannedAt)}` : 'scan time not recorded';
  return `Component vulnerability scan: ${plural(f.findingCount, 'finding')} (${when}).`;
}

function dispositionEvidence(f: ReportFacts): string {
  return (
    `Fixed ${f.fixed}; not affected ${f.notAffected}; affected with a remediation response ${f.affectedRemediating}; ` +
    `affected, risk accepted (will/can not fix) ${f.affectedAcceptedRisk}; affected without response ${f.affectedWithoutResponse}; ` +
    `under investigation ${f.underInvestigation}; no disposition ${f.undisposed}.`
  );
}

function slaEvidence(f: ReportFacts): string {
  const s = f.sla;
  return (
    `SLA: ${s.met} met, ${s.breached} breached (${s.breachedOpen} overdue, ${s.breachedClosedLate} closed late), ` +
    `${s.atRisk} at risk, ${s.openWithin} open within the window.`
  );
}

function disclosureEvidence(f: ReportFacts): string[] {
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

function integrityEvidence(f: ReportFacts): string[] {
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

const MANUAL = (ref: string, title: string, ...evidence: string[]): Assessment => ({
  ref,
  title,
  status: 'manual',
  evidence: evidence.length > 0 ? evidence : ['Not visible to the service; requires a signed attestation.'],
});

// ---------------------------------------------------------------------------
// EU Cyber Resilience Act (Regulation (EU) 2024/2847), Annex I
// ---------------------------------------------------------------------------

function assessCraPart2(f: ReportFacts): Assessment[] {
  const sbomWithComponents = f.sbomCount > 0 && (f.declaredComponents > 0 || f.inventoryCount > 0);
  const point1: Assessment = {
    ref: 'Annex I Part II (1)',
    title:
      'Identify and document vulnerabilities and components, including an SBOM in a commonly used, machine-readable format covering at least the top-level dependencies.',
    status: f.sbomCount === 0 ? 'not_evidenced' : sbomWithComponents && f.scanned ? 'met' : 'partial',
    evidence: [
      ...sbomEvidence(f),
      ...(f.sbomCount > 0 && !sbomWithComponents ? ['The SBOM lists no components.'] : []),
      scanEvidence(f),
    ],
  };

  let remediationStatus: EvidenceStatus;
  if (!f.scanned) remediationStatus = 'not_evidenced';
  else if (f.findingCount === 0) remediationStatus = 'met';
  else if (f.sla.breached > 0) remediationStatus = 'not_evidenced';
  else if (f.notFinal > 0 || f.affectedAcceptedRisk > 0 || f.affectedWithoutResponse > 0) remediationStatus = 'partial';
  else remediationStatus = 'met';
  const point2: Assessment = {
    ref: 'Annex I Part II (2)',
    title:
      'Address and remediate vulnerabilities without delay, including by providing security updates (separately from functionality updates where feasible).',
    status: remediationStatus,
    evidence: !f.scanned
      ? [scanEvidence(f)]
      : f.findingCount === 0
        ? [scanEvidence(f), 'The scan matched no vulnerabilities; nothing to remediate.']
        : [
            dispositionEvidence(f),
            slaEvidence(f),
            'Separation of security updates from functionality updates requires manual attestation.',
          ],
  };

  const point3: Assessment = {
    ref: 'Annex I Part II (3)',
    title: 'Apply effective and regular tests and reviews of the security of the product.',
    status: f.scanned ? 'partial' : 'not_evidenced',
    evidence: [
      scanEvidence(f),
      'Security testing and reviews of the product itself (e.g. penetration tests, code review) require manual attestation.',
    ],
  };

  const point4: Assessment = {
    ref: 'Annex I Part II (4)',
    title:
      'Once a security update is available, publicly disclose information about fixed vulnerabilities (description, affected product, impact, severity, remediation guidance).',
    status: f.latestDisclosure === null ? 'not_evidenced' : f.changedSinceDisclosure > 0 ? 'partial' : 'met',
    evidence: [...disclosureEvidence(f), `Fixed findings in this release: ${f.fixed}.`],
  };

  const point8Evidence = f.latestDisclosure
    ? [
        ...disclosureEvidence(f).slice(0, 1),
        'Advisory published; dissemination of the updates themselves and their being free of charge require manual attestation.',
      ]
    : ['No advisory published by the service; dissemination of updates requires manual attestation.'];

  return [
    point1,
    point2,
    point3,
    point4,
    MANUAL(
      'Annex I Part II (5)',
      'Put in place and enforce a policy on coordinated vulnerability disclosure.',
      'The service holds no CVD policy; attach or reference it.',
    ),
    MANUAL(
      'Annex I Part II (6)',
      'Facilitate the sharing of information about potential vulnerabilities, including a contact address for reporting them.',
      'No vulnerability-reporting contact is recorded in the service.',
      ...(f.latestDisclosure
        ? ['Supporting: vulnerability information is shared through public VEX disclosures.']
        : []),
    ),
    MANUAL(
      'Annex I Part II (7)',
      'Provide mechanisms to securely distribute updates (automatically where applicable).',
      'Update distribution happens outside the service.',
    ),
    {
      ref: 'Annex I Part II (8)',
      title:
        'Disseminate security updates without delay and, unless otherwise agreed, free of charge, with advisory messages.',
      status: f.latestDisclosure ? 'partial' : 'manual',
      evidence: point8Evidence,
    },
  ];
}

function assessCraPart1(f: ReportFacts): Assessment[] {
  let exploitableStatus: EvidenceStatus;
  const exploitableEvidence = [scanEvidence(f)];
  if (!f.scanned) exploitableStatus = 'not_evidenced';
  else if (f.kevUnresolved > 0) {
    exploitableStatus = 'not_evidenced';
    exploitableEvidence.push(
      `${plural(f.kevUnresolved, 'known-exploited (CISA KEV) finding')} neither fixed nor not affected.`,
    );
  } else if (f.openKnown > 0) {
    exploitableStatus = 'partial';
    exploitableEvidence.push(
      `${plural(f.openKnown, 'finding')} neither fixed nor not affected (none known-exploited).`,
    );
  } else {
    exploitableStatus = 'met';
    exploitableEvidence.push(
      f.findingCount === 0
        ? 'No known vulnerabilities matched.'
        : `All ${plural(f.findingCount, 'finding')} are fixed or not affected.`,
    );
  }

  return [
    MANUAL(
      'Annex I Part I (1)',
      'Designed, developed and produced to ensure an appropriate level of cybersecurity based on the risks.',
      'Requires the cybersecurity risk assessment (Art. 13(2)).',
    ),
    {
      ref: 'Annex I Part I (2)(a)',
      title: 'Made available on the market without known exploitable vulnerabilities.',
      status: exploitableStatus,
      evidence: exploitableEvidence,
    },
    MANUAL(
      'Annex I Part I (2)(b)',
      'Secure-by-default configuration, with the possibility to reset to the original state.',
    ),
    {
      ref: 'Annex I Part I (2)(c)',
      title: 'Vulnerabilities can be addressed through security updates (automatic where applicable, with opt-out).',
      status: f.fixed + f.affectedRemediating > 0 ? 'partial' : 'manual',
      evidence:
        f.fixed + f.affectedRemediating > 0
          ? [
              `${plural(f.fixed + f.affectedRemediating, 'finding')} fixed or with an update/rollback/workaround response.`,
              'The update mechanism itself requires manual attestation.',
            ]
          : ['No fixed findings recorded; the update mechanism requires manual attestation.'],
    },
    MANUAL('Annex I Part I (2)(d)', 'Protection from unauthorised access by appropriate control mechanisms.'),
    MANUAL('Annex I Part I (2)(e)', 'Confidentiality of stored, transmitted or processed data (e.g. encryption).'),
    MANUAL(
      'Annex I Part I (2)(f)',
      'Integrity of stored, transmitted or processed data, commands, programs and configuration.',
    ),
    MANUAL('Annex I Part I (2)(g)', 'Data minimisation.'),
    MANUAL(
      'Annex I Part I (2)(h)',
      'Availability of essential and basic functions, including resilience against denial of service.',
    ),
    MANUAL(
      'Annex I Part I (2)(i)',
      'Minimise negative impact on the availability of services provided by other devices or networks.',
    ),
    MANUAL('Annex I Part I (2)(j)', 'Limit attack surfaces, including external interfaces.'),
    MANUAL('Annex I Part I (2)(k)', 'Reduce the impact of an incident using exploitation mitigation mechanisms.'),
    MANUAL(
      'Annex I Part I (2)(l)',
      'Record and monitor relevant internal activity (security-related information), with an opt-out.',
    ),
    MANUAL('Annex I Part I (2)(m)', 'Allow users to securely and easily remove all data and settings permanently.'),
  ];
}

function assessCraReporting(f: ReportFacts): Assessment[] {
  return [
    MANUAL(
      'Art. 14(1)–(2)',
      'Notify actively exploited vulnerabilities contained in the product (early warning within 24 hours) via the single reporting platform to the CSIRT coordinator and ENISA.',
      f.kevCount === 0
        ? 'No known-exploited (CISA KEV) findings in this release.'
        : `${plural(f.kevCount, 'known-exploited (CISA KEV) finding')} in this release, ${f.kevUnresolved} neither fixed nor not affected; whether notifications were made requires manual attestation.`,
    ),
  ];
}

// ---------------------------------------------------------------------------
// US Executive Orders 14028 and 14144
// ---------------------------------------------------------------------------

function assessExecutiveOrders(f: ReportFacts): Assessment[] {
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

// ---------------------------------------------------------------------------
// NIST SP 800-218 (SSDF v1.1)
// ---------------------------------------------------------------------------

type TaskEvaluator = (f: ReportFacts) => Omit<Assessment, 'ref' | 'title'>;

/** SSDF v1.1 tasks the service has data for; every other task is a manual attestation. */
const SSDF_EVIDENCED: Record<string, TaskEvaluator> = {
  'PO.3.3': (f) =>
    f.sbomToolNames.length > 0 || f.vexCount > 0
      ? {
          status: 'partial',
          evidence: [
            ...(f.sbomToolNames.length > 0 ? [`SBOM generated by: ${f.sbomToolNames.join(', ')}.`] : []),
            ...(f.vexCount > 0
              ? [`${plural(f.vexCount, 'VEX document')} generated from the scan and dispositions.`]
              : []),
          ],
        }
      : { status: 'manual', evidence: ['No tool-generated artifacts recorded.'] },
  'PO.4.1': (f) => ({
    status: 'partial',
    evidence: [
      `Remediation criteria (SLA, ${f.policyCustomised ? 'team policy' : 'service defaults'}): critical ${f.policy.critical} d, high ${f.policy.high} d, medium ${f.policy.medium} d, low ${f.policy.low} d, known-exploited ${f.policy.kev} d.`,
      'Other security-check criteria require manual attestation.',
    ],
  }),
  'PS.2.1': (f) => {
    const integrity = integrityEvidence(f);
    return integrity.length > 0
      ? {
          status: 'partial',
          evidence: [
            ...integrity,
            'Integrity information for the release artifacts themselves requires manual attestation.',
          ],
        }
      : { status: 'manual', evidence: ['No integrity information recorded by the service.'] };
  },
  'PS.3.1': (f) =>
    f.sbomCount > 0 || f.disclosures.length > 0
      ? {
          status: 'partial',
          evidence: [
            ...(f.sbomCount > 0
              ? [
                  `Original SBOM ${f.sbomCount === 1 ? 'file' : 'files'} retained unchanged (${plural(f.sbomCount, 'file')}).`,
                ]
              : []),
            ...(f.disclosures.length > 0
              ? [`${plural(f.disclosures.length, 'immutable disclosure snapshot')} retained.`]
              : []),
            'Archiving of the release files themselves requires manual attestation.',
          ],
        }
      : { status: 'manual', evidence: ['No release data archived by the service.'] },
  'PS.3.2': (f) => ({
    status: f.sbomCount === 0 ? 'not_evidenced' : f.declaredComponents > 0 || f.inventoryCount > 0 ? 'met' : 'partial',
    evidence: sbomEvidence(f),
  }),
  'PW.4.1': (f) => ({
    status: f.scanned ? 'partial' : 'not_evidenced',
    evidence: [scanEvidence(f), 'Selection criteria for third-party components require manual attestation.'],
  }),
  'PW.4.4': (f) => ({
    status: f.scanned ? 'partial' : 'not_evidenced',
    evidence: [scanEvidence(f), ...(f.scanned ? [dispositionEvidence(f)] : [])],
  }),
  'RV.1.1': (f) => ({
    status: !f.scanned ? 'not_evidenced' : f.undisposed === 0 ? 'met' : 'partial',
    evidence: [
      scanEvidence(f),
      ...(f.scanned && f.findingCount > 0
        ? [`${plural(f.findingCount - f.undisposed, 'finding')} of ${f.findingCount} have a recorded triage decision.`]
        : []),
    ],
  }),
  'RV.1.2': (f) => ({
    status: f.scanned ? 'partial' : 'not_evidenced',
    evidence: [
      scanEvidence(f),
      'Review or testing of the product code for previously undetected vulnerabilities requires manual attestation.',
    ],
  }),
  'RV.1.3': (f) => ({
    status: 'partial',
    evidence: [
      `Remediation SLA policy in force (${f.policyCustomised ? 'team policy' : 'service defaults'}).`,
      ...disclosureEvidence(f),
      'The vulnerability disclosure policy document requires manual attestation.',
    ],
  }),
  'RV.2.1': (f) => {
    if (!f.scanned) return { status: 'not_evidenced', evidence: [scanEvidence(f)] };
    if (f.findingCount === 0) return { status: 'met', evidence: [scanEvidence(f), 'No vulnerabilities to analyse.'] };
    const analysed = f.findingCount - f.undisposed - f.underInvestigation;
    return {
      status: analysed === f.findingCount ? 'met' : 'partial',
      evidence: [
        `${plural(analysed, 'finding')} of ${f.findingCount} analysed (status other than under investigation).`,
        dispositionEvidence(f),
      ],
    };
  },
  'RV.2.2': (f) => {
    if (!f.scanned) return { status: 'not_evidenced', evidence: [scanEvidence(f)] };
    if (f.findingCount === 0)
      return { status: 'met', evidence: [scanEvidence(f), 'No vulnerabilities requiring a response.'] };
    return {
      status: f.notFinal === 0 && f.sla.breached === 0 ? 'met' : 'partial',
      evidence: [dispositionEvidence(f), slaEvidence(f)],
    };
  },
};

/** SSDF v1.1 practice groups, practices and tasks (task text abridged). */
const SSDF_CATALOGUE: {
  id: SsdfGroup['id'];
  title: string;
  practices: { id: string; title: string; tasks: [string, string][] }[];
}[] = [
  {
    id: 'PO',
    title: 'Prepare the Organization',
    practices: [
      {
        id: 'PO.1',
        title: 'Define Security Requirements for Software Development',
        tasks: [
          [
            'PO.1.1',
            'Identify, document and maintain security requirements for the development infrastructures and processes.',
          ],
          ['PO.1.2', 'Identify, document and maintain security requirements for organization-developed software.'],
          ['PO.1.3', 'Communicate requirements to third parties who provide commercial software components.'],
        ],
      },
      {
        id: 'PO.2',
        title: 'Implement Roles and Responsibilities',
        tasks: [
          ['PO.2.1', 'Create or alter roles and responsibilities to cover all parts of the SDLC.'],
          ['PO.2.2', 'Provide role-based training for personnel contributing to secure development.'],
          ['PO.2.3', 'Obtain upper management commitment to secure development.'],
        ],
      },
      {
        id: 'PO.3',
        title: 'Implement Supporting Toolchains',
        tasks: [
          ['PO.3.1', 'Specify which tools or tool types each toolchain must include to mitigate identified risks.'],
          ['PO.3.2', 'Follow recommended security practices to deploy, operate and maintain tools and toolchains.'],
          ['PO.3.3', 'Configure tools to generate artifacts of their support of secure development practices.'],
        ],
      },
      {
        id: 'PO.4',
        title: 'Define and Use Criteria for Software Security Checks',
        tasks: [
          ['PO.4.1', 'Define criteria for software security checks and track them throughout the SDLC.'],
          ['PO.4.2', 'Gather and safeguard the information needed to support the criteria.'],
        ],
      },
      {
        id: 'PO.5',
        title: 'Implement and Maintain Secure Environments for Software Development',
        tasks: [
          ['PO.5.1', 'Separate and protect each environment involved in software development.'],
          ['PO.5.2', 'Secure and harden development endpoints.'],
        ],
      },
    ],
  },
  {
    id: 'PS',
    title: 'Protect the Software',
    practices: [
      {
        id: 'PS.1',
        title: 'Protect All Forms of Code from Unauthorized Access and Tampering',
        tasks: [
          [
            'PS.1.1',
            'Store all forms of code under least privilege so only authorized personnel, tools and services have access.',
          ],
        ],
      },
      {
        id: 'PS.2',
        title: 'Provide a Mechanism for Verifying Software Release Integrity',
        tasks: [['PS.2.1', 'Make software integrity verification information available to software acquirers.']],
      },
      {
        id: 'PS.3',
        title: 'Archive and Protect Each Software Release',
        tasks: [
          ['PS.3.1', 'Securely archive the files and supporting data to be retained for each release.'],
          [
            'PS.3.2',
            'Collect, safeguard, maintain and share provenance data for all components of each release (e.g. an SBOM).',
          ],
        ],
      },
    ],
  },
  {
    id: 'PW',
    title: 'Produce Well-Secured Software',
    practices: [
      {
        id: 'PW.1',
        title: 'Design Software to Meet Security Requirements and Mitigate Security Risks',
        tasks: [
          ['PW.1.1', 'Use forms of risk modeling to assess the security risk of the software.'],
          ['PW.1.2', 'Track and maintain security requirements, risks and design decisions.'],
          ['PW.1.3', 'Build in support for standardized security features and services where appropriate.'],
        ],
      },
      {
        id: 'PW.2',
        title: 'Review the Software Design to Verify Compliance with Security Requirements and Risk Information',
        tasks: [
          [
            'PW.2.1',
            'Have a qualified independent person or automated process review the design against requirements and risk information.',
          ],
        ],
      },
      {
        id: 'PW.4',
        title: 'Reuse Existing, Well-Secured Software When Feasible',
        tasks: [
          ['PW.4.1', 'Acquire and maintain well-secured software components from third parties.'],
          ['PW.4.2', 'Create and maintain well-secured software components in-house for reuse.'],
          [
            'PW.4.4',
            'Verify that acquired third-party components comply with the requirements throughout their life cycles.',
          ],
        ],
      },
      {
        id: 'PW.5',
        title: 'Create Source Code by Adhering to Secure Coding Practices',
        tasks: [['PW.5.1', 'Follow secure coding practices appropriate to the languages and environment.']],
      },
      {
        id: 'PW.6',
        title: 'Configure the Compilation, Interpreter, and Build Processes to Improve Executable Security',
        tasks: [
          ['PW.6.1', 'Use compiler, interpreter and build tools that offer features to improve executable security.'],
          ['PW.6.2', 'Determine, configure and use the approved compiler, interpreter and build tool features.'],
        ],
      },
      {
        id: 'PW.7',
        title: 'Review and/or Analyze Human-Readable Code to Identify Vulnerabilities',
        tasks: [
          ['PW.7.1', 'Determine whether code review and/or code analysis should be used.'],
          ['PW.7.2', 'Perform the code review and/or analysis and record and triage the issues found.'],
        ],
      },
      {
        id: 'PW.8',
        title: 'Test Executable Code to Identify Vulnerabilities',
        tasks: [
          ['PW.8.1', 'Determine whether executable code testing should be performed.'],
          ['PW.8.2', 'Scope, design and perform the testing, and document the results.'],
        ],
      },
      {
        id: 'PW.9',
        title: 'Configure Software to Have Secure Settings by Default',
        tasks: [
          ['PW.9.1', 'Define a secure baseline for each configurable setting.'],
          ['PW.9.2', 'Implement the default settings and document them for administrators.'],
        ],
      },
    ],
  },
  {
    id: 'RV',
    title: 'Respond to Vulnerabilities',
    practices: [
      {
        id: 'RV.1',
        title: 'Identify and Confirm Vulnerabilities on an Ongoing Basis',
        tasks: [
          [
            'RV.1.1',
            'Gather information on potential vulnerabilities in the software and its third-party components, and investigate credible reports.',
          ],
          [
            'RV.1.2',
            'Review, analyze and/or test the code to identify or confirm previously undetected vulnerabilities.',
          ],
          [
            'RV.1.3',
            'Have a policy for vulnerability disclosure and remediation, with the roles and processes to support it.',
          ],
        ],
      },
      {
        id: 'RV.2',
        title: 'Assess, Prioritize, and Remediate Vulnerabilities',
        tasks: [
          ['RV.2.1', 'Analyze each vulnerability to gather enough risk information to plan its remediation.'],
          ['RV.2.2', 'Plan and implement risk responses for vulnerabilities.'],
        ],
      },
      {
        id: 'RV.3',
        title: 'Analyze Vulnerabilities to Identify Their Root Causes',
        tasks: [
          ['RV.3.1', 'Analyze identified vulnerabilities to determine their root causes.'],
          ['RV.3.2', 'Analyze root causes over time to identify patterns.'],
          ['RV.3.3', 'Review the software for similar vulnerabilities and proactively fix them.'],
          ['RV.3.4', 'Review and update the SDLC process to prevent the root causes recurring.'],
        ],
      },
    ],
  },
];

/** Task ids the service can (at least partly) evidence from its data. */
export const SSDF_EVIDENCED_TASKS: readonly string[] = Object.keys(SSDF_EVIDENCED);

function assessSsdf(f: ReportFacts): SsdfGroup[] {
  return SSDF_CATALOGUE.map((group) => ({
    id: group.id,
    title: group.title,
    practices: group.practices.map((practice) => ({
      id: practice.id,
      title: practice.title,
      tasks: practice.tasks.map(([ref, title]) => {
        const evaluate = SSDF_EVIDENCED[ref];
        return evaluate ? { ref, title, ...evaluate(f) } : MANUAL(ref, title);
      }),
    })),
  }));
}

export function assessFrameworks(facts: ReportFacts): FrameworkAssessments {
  return {
    craPart2: assessCraPart2(facts),
    craPart1: assessCraPart1(facts),
    craReporting: assessCraReporting(facts),
    executiveOrders: assessExecutiveOrders(facts),
    ssdf: assessSsdf(facts),
  };
}
