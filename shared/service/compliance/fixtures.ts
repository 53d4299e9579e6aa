/**
 * Deterministic sample report input for tests, the render bench and local previews.
 * Not used by the handlers (tree-shaken out of the Lambda bundle).
 */
import type { ComplianceReportInput } from './model';

type FindingInput = NonNullable<ComplianceReportInput['findings']>[number];
type ComponentInput = NonNullable<ComplianceReportInput['components']>[number];

const DAY_MS = 86_400_000;
const LICENSES = ['Apache-2.0', 'MIT', 'BSD-3-Clause', 'ISC', 'EPL-2.0', 'LGPL-2.1-only'];
const ECOSYSTEMS = ['npm', 'maven', 'pypi', 'golang', 'cargo'];
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;

/** Small LCG so "random" samples are identical on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function isoDaysBefore(now: string, days: number): string {
  return new Date(Date.parse(now) - days * DAY_MS).toISOString();
}

export interface SampleOptions {
  components?: number;
  findings?: number;
  generatedAt?: string;
  seed?: number;
}

export function buildSampleComponents(count: number, seed = 7): ComponentInput[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const ecosystem = ECOSYSTEMS[i % ECOSYSTEMS.length] ?? 'npm';
    const name = `component-${String(i).padStart(5, '0')}`;
    const version = `${1 + Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`;
    return {
      name,
      version,
      purl: `pkg:${ecosystem}/${name}@${version}`,
      licenses: [LICENSES[Math.floor(random() * LICENSES.length)] ?? 'MIT'],
    };
  });
}

export function buildSampleFindings(count: number, generatedAt: string, seed = 11): FindingInput[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const severity = SEVERITIES[Math.floor(random() * SEVERITIES.length)] ?? 'LOW';
    const detectedDaysAgo = Math.floor(random() * 200);
    const firstDetectedAt = isoDaysBefore(generatedAt, detectedDaysAgo);
    const roll = random();
    const decidedAt = isoDaysBefore(generatedAt, Math.floor(detectedDaysAgo * random()));
    let disposition: FindingInput['disposition'] = null;
    if (roll < 0.3)
      disposition = {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        updatedAt: decidedAt,
        detail: 'Code path unreachable in our build.',
      };
    else if (roll < 0.55) disposition = { status: 'fixed', updatedAt: decidedAt };
    else if (roll < 0.7) disposition = { status: 'affected', response: 'update', updatedAt: decidedAt };
    else if (roll < 0.8) disposition = { status: 'under_investigation', updatedAt: decidedAt };
    return {
      cveId: `CVE-2024-${String(10_000 + i)}`,
      componentName: `component-${String(i % 1000).padStart(5, '0')}`,
      componentVersion: '1.0.0',
      severity,
      cvssV3Score: Math.round(random() * 100) / 10,
      cvssV4Score: random() < 0.5 ? Math.round(random() * 100) / 10 : null,
      cvssV2Score: null,
      epssScore: random() < 0.9 ? Math.round(random() * 10_000) / 10_000 : null,
      epssPercentile: Math.round(random() * 1000) / 1000,
      isKev: random() < 0.02,
      firstDetectedAt,
      disposition,
    };
  });
}

/**
 * A realistic release: one CycloneDX SBOM, a mix of findings (two KEV), a published and
 * signed OpenVEX disclosure with its approval trail, and a CSAF draft.
 */
export function buildSampleReportInput(options: SampleOptions = {}): ComplianceReportInput {
  const generatedAt = options.generatedAt ?? '2025-06-30T12:00:00.000Z';
  const componentCount = options.components ?? 25;
  const components = buildSampleComponents(componentCount, options.seed ?? 7);
  const handPicked: FindingInput[] = [
    {
      cveId: 'CVE-2021-44228',
      componentName: 'log4j-core',
      componentVersion: '2.14.1',
      severity: 'CRITICAL',
      cvssV3Score: 10,
      cvssV4Score: null,
      cvssV2Score: 9.3,
      epssScore: 0.9447,
      epssPercentile: 0.9998,
      isKev: true,
      kevDueDate: '2021-12-24',
      firstDetectedAt: isoDaysBefore(generatedAt, 20),
      disposition: { status: 'fixed', updatedAt: isoDaysBefore(generatedAt, 18), detail: 'Upgraded to 2.17.1.' },
    },
    {
      cveId: 'CVE-2023-4863',
      componentName: 'libwebp',
      componentVersion: '1.3.1',
      severity: 'HIGH',
      cvssV3Score: 8.8,
      epssScore: 0.3,
      epssPercentile: 0.97,
      isKev: true,
      firstDetectedAt: isoDaysBefore(generatedAt, 10),
      disposition: { status: 'under_investigation', updatedAt: isoDaysBefore(generatedAt, 9) },
    },
    {
      cveId: 'CVE-2022-22965',
      componentName: 'spring-beans',
      componentVersion: '5.2.5.RELEASE',
      severity: 'critical',
      cvssV3Score: 9.8,
      epssScore: 0.97,
      epssPercentile: 0.999,
      isKev: false,
      firstDetectedAt: isoDaysBefore(generatedAt, 3),
      disposition: null,
    },
    {
      cveId: 'CVE-2020-8908',
      componentName: 'guava',
      componentVersion: '28.2-android',
      severity: 'low',
      cvssV3Score: 3.3,
      epssScore: 0.0012,
      epssPercentile: 0.45,
      firstDetectedAt: isoDaysBefore(generatedAt, 100),
      disposition: {
        status: 'affected',
        response: 'will_not_fix',
        updatedAt: isoDaysBefore(generatedAt, 90),
        detail: 'Temp-dir API unused on server.',
      },
    },
  ];
  const findings = [
    ...handPicked,
    ...buildSampleFindings(
      Math.max(0, (options.findings ?? 12) - handPicked.length),
      generatedAt,
      (options.seed ?? 7) + 4,
    ),
  ];
  const publishedAt = isoDaysBefore(generatedAt, 1);

  return {
    team: { id: 'team-1', name: 'Acme Product Security' },
    product: {
      name: 'Acme Edge Router',
      slug: 'acme-edge-router',
      vendor: 'Acme Networks GmbH',
      description: 'Firmware and management plane for the Acme Edge Router family.',
      websiteUrl: 'https://acme.example/edge-router',
      repositoryUrl: 'https://git.acme.example/edge/router',
    },
    release: {
      version: '4.2.0',
      name: 'Spring release',
      releaseDate: '2025-05-15',
      endOfLifeDate: '2028-05-15',
      status: 'active',
      isLocked: true,
    },
    sboms: [
      {
        id: '5f0c8f39-4b0a-4a55-8d38-2a8f0b5f7a11',
        format: 'CycloneDX',
        specVersion: '1.5',
        toolName: 'cdxgen 8.6.0',
        fileHash: 'a3f1c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978',
        uploadedAt: isoDaysBefore(generatedAt, 30),
        fileName: 'acme-edge-router-4.2.0.cdx.json',
        componentCount,
        scannedAt: isoDaysBefore(generatedAt, 2),
      },
    ],
    components,
    findings,
    vexDocuments: [
      {
        id: 'vex-7c1d',
        format: 'openvex',
        workflowStatus: 'published',
        version: 3,
        author: 'Jane Doe',
        approvals: [
          {
            action: 'submit',
            actorName: 'Jane Doe',
            comment: 'Ready for review',
            createdAt: isoDaysBefore(generatedAt, 3),
          },
          { action: 'approve', actorName: 'Max Mustermann', comment: null, createdAt: isoDaysBefore(generatedAt, 2) },
          { action: 'publish', actorName: 'api_release-bot', comment: 'Published by CI', createdAt: publishedAt },
        ],
        disclosure: {
          publicSlug: 'acme-edge-router-4-2-0-openvex-v3',
          url: '/api/disclosures/acme-edge-router-4-2-0-openvex-v3',
          verifyUrl: '/api/disclosures/acme-edge-router-4-2-0-openvex-v3/verify',
          contentHash: 'sha256:0b6a8e3f9d2c4b1a7e5f3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e',
          publishedAt,
          signed: true,
        },
      },
      {
        id: 'vex-9a2e',
        format: 'csaf',
        workflowStatus: 'draft',
        version: 1,
        author: null,
        approvals: [],
        disclosure: null,
      },
    ],
    slaPolicy: null,
    generatedAt,
    baseUrl: 'https://vexdesk.example.com',
  };
}
