/** EU Cyber Resilience Act (Regulation (EU) 2024/2847): Annex I parts I and II, and the Art. 14 reporting obligation. */
import { plural } from '../format';
import type { ReportFacts } from '../report-facts';
import {
  disclosureEvidence,
  dispositionEvidence,
  MANUAL,
  sbomEvidence,
  scanEvidence,
  slaEvidence,
  type Assessment,
  type EvidenceStatus,
} from './evidence';

export function assessCraPart2(f: ReportFacts): Assessment[] {
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

export function assessCraPart1(f: ReportFacts): Assessment[] {
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

export function assessCraReporting(f: ReportFacts): Assessment[] {
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
