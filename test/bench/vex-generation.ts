/**
 * VEX generation inputs for tests and the generation benchmark.
 *
 *   npx tsx test/bench/vex-generation.ts      # median ms per format, 2,000 findings (target <= 300 ms)
 */
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DISPOSITION_STATUSES, JUSTIFICATIONS, RESPONSES } from '../../shared/service/dispositions/vocabulary';
import { generateVex, serializeVex } from '../../shared/service/vex/formats';
import type { VexDisposition, VexFinding, VexFormat, VexGenerationInput } from '../../shared/service/vex/model';

const TEAM = '0b5d3c9e-7f60-4d4b-9a1e-5d7c2b1f0a11';

/** A disposition with every optional field null. */
export function vexDisposition(partial: Partial<VexDisposition> & Pick<VexDisposition, 'status'>): VexDisposition {
  return {
    justification: null,
    response: null,
    detail: null,
    actionStatement: null,
    impactStatement: null,
    updatedAt: '2026-02-20T10:00:00.000Z',
    ...partial,
  };
}

/** A finding with every optional field empty/null (untriaged). */
export function vexFinding(partial: Partial<VexFinding> & Pick<VexFinding, 'id' | 'componentRef'>): VexFinding {
  return {
    cveId: null,
    advisoryId: null,
    aliases: [],
    summary: null,
    cwes: [],
    cvssV2: null,
    cvssV3: null,
    cvssV4: null,
    epss: null,
    isKev: false,
    fixedVersions: [],
    disposition: null,
    ...partial,
  };
}

/** Document, product, release and SBOM of every test input; findings/components vary. */
export function baseVexInput(overrides: Partial<VexGenerationInput> = {}): VexGenerationInput {
  return {
    document: {
      id: 'vex-2f6c1a8e-acme-widget-2-4-1',
      version: 3,
      author: 'Jane Analyst',
      generatedAt: '2026-03-01T12:00:00.000Z',
      createdAt: '2026-02-01T09:00:00.000Z',
      status: 'draft',
      publisherName: 'Acme Corp PSIRT',
      publisherNamespace: `https://vexdesk.example/teams/${TEAM}`,
      revisions: [{ version: 1, date: '2026-02-01T09:00:00.000Z', summary: 'Initial version.' }],
    },
    product: {
      id: '5a0f6c7e-1d2b-4c3a-8e9f-0a1b2c3d4e5f',
      name: 'Acme Widget Server',
      vendor: 'Acme Corp',
      slug: 'acme-widget-server',
    },
    release: { id: '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', version: '2.4.1', purl: null },
    sboms: [
      {
        id: 'd3b07384-d9a0-4c9b-8f1e-6a3b5c7d9e0f',
        format: 'CycloneDX',
        specVersion: '1.5',
        fileHash: 'sha256:3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea',
      },
    ],
    components: [],
    findings: [],
    cweNames: {
      'CWE-502': 'Deserialization of Untrusted Data',
      'CWE-94': "Improper Control of Generation of Code ('Code Injection')",
    },
    ...overrides,
  };
}

/**
 * Realistic release: findings in all four statuses plus untriaged ones, duplicate findings
 * of one CVE via its GHSA, a GHSA-only advisory, CVSS v2/v3.0/v3.1/v4, EPSS and KEV.
 */
export function buildSampleVexInput(): VexGenerationInput {
  return baseVexInput({
    components: [
      {
        ref: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        name: 'log4j-core',
        version: '2.14.1',
        purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        cpes: ['cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*'],
      },
      {
        ref: 'pkg:maven/org.springframework/spring-beans@5.2.5.RELEASE',
        name: 'spring-beans',
        version: '5.2.5.RELEASE',
        purl: 'pkg:maven/org.springframework/spring-beans@5.2.5.RELEASE',
        cpes: [],
      },
      {
        ref: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.3',
        name: 'jackson-databind',
        version: '2.10.3',
        purl: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.3',
        cpes: [],
      },
      {
        ref: 'pkg:maven/org.yaml/snakeyaml@1.25',
        name: 'snakeyaml',
        version: '1.25',
        purl: 'pkg:maven/org.yaml/snakeyaml@1.25',
        cpes: [],
      },
      { ref: 'pkg:npm/lodash@4.17.20', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', cpes: [] },
      {
        ref: 'SPDXRef-Package-busybox-1.36.1',
        name: 'busybox',
        version: '1.36.1',
        purl: null,
        cpes: ['cpe:/a:busybox:busybox:1.36.1'],
      },
      { ref: 'internal-plugin-host', name: 'plugin-host', version: '0.9.0', purl: null, cpes: [] },
      { ref: 'pkg:npm/semver@5.1.0', name: 'semver', version: '5.1.0', purl: 'pkg:npm/semver@5.1.0', cpes: [] },
      { ref: 'pkg:npm/semver@7.3.8', name: 'semver', version: '7.3.8', purl: 'pkg:npm/semver@7.3.8', cpes: [] },
      // Not matched by any finding: must not appear in the documents.
      { ref: 'pkg:npm/left-pad@1.3.0', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0', cpes: [] },
    ],
    findings: [
      vexFinding({
        id: '11111111-1111-4111-8111-111111111111',
        componentRef: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        cveId: 'CVE-2021-44228',
        advisoryId: 'GHSA-jfh8-c2jp-5v3q',
        aliases: ['GHSA-jfh8-c2jp-5v3q'],
        summary:
          'Apache Log4j2 JNDI features do not protect against attacker controlled LDAP and other JNDI related endpoints.',
        cwes: ['CWE-502', 'CWE-400', 'CWE-20'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', score: 10, severity: 'CRITICAL' },
        cvssV2: { vector: 'AV:N/AC:M/Au:N/C:C/I:C/A:C', score: 9.3, severity: 'HIGH' },
        epss: { score: 0.94358, percentile: 0.99957 },
        isKev: true,
        fixedVersions: ['2.17.1', '2.12.4', '2.3.2'],
        disposition: vexDisposition({
          status: 'affected',
          response: 'update',
          detail: 'JNDI lookups are reachable from request logging.',
        }),
      }),
      // Same CVE and component found again through the GHSA record, not triaged: merged, "affected" wins.
      vexFinding({
        id: '11111111-1111-4111-8111-111111111112',
        componentRef: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
        cveId: null,
        advisoryId: 'GHSA-jfh8-c2jp-5v3q',
        aliases: ['CVE-2021-44228'],
        isKev: true,
        fixedVersions: ['2.15.0'],
      }),
      vexFinding({
        id: '22222222-2222-4222-8222-222222222222',
        componentRef: 'pkg:maven/org.springframework/spring-beans@5.2.5.RELEASE',
        cveId: 'CVE-2022-22965',
        advisoryId: 'GHSA-36p3-wjmg-h94x',
        aliases: ['GHSA-36p3-wjmg-h94x'],
        summary: 'Spring Framework RCE via Data Binding on JDK 9+ (Spring4Shell).',
        cwes: ['CWE-94'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8, severity: 'CRITICAL' },
        epss: { score: 0.9745, percentile: 0.99979 },
        isKev: true,
        disposition: vexDisposition({
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          impactStatement: 'The product runs as an executable jar on JDK 8; the WAR deployment path is never used.',
          updatedAt: '2026-02-21T08:30:00.000Z',
        }),
      }),
      vexFinding({
        id: '33333333-3333-4333-8333-333333333333',
        componentRef: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.3',
        cveId: 'CVE-2020-36518',
        advisoryId: 'GHSA-57j2-w4cx-62h2',
        aliases: ['GHSA-57j2-w4cx-62h2'],
        summary:
          'jackson-databind allows a Java StackOverflow exception and denial of service via a large depth of nested objects.',
        cwes: ['CWE-787'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: 7.5, severity: 'HIGH' },
        fixedVersions: ['2.12.6.1', '2.13.2.1'],
        disposition: vexDisposition({ status: 'fixed', detail: 'Backported upstream patch in build 2.4.1-2.' }),
      }),
      vexFinding({
        id: '44444444-4444-4444-8444-444444444444',
        componentRef: 'pkg:maven/org.yaml/snakeyaml@1.25',
        cveId: 'CVE-2022-1471',
        advisoryId: 'GHSA-mjmj-j48q-9wg2',
        aliases: ['GHSA-mjmj-j48q-9wg2'],
        summary: 'SnakeYaml Constructor Deserialization Remote Code Execution',
        cwes: ['CWE-502', 'CWE-20'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', score: 8.8, severity: 'HIGH' },
        disposition: vexDisposition({
          status: 'under_investigation',
          detail: 'Checking whether untrusted YAML reaches the Constructor.',
        }),
      }),
      vexFinding({
        id: '55555555-5555-4555-8555-555555555555',
        componentRef: 'pkg:npm/lodash@4.17.20',
        cveId: 'CVE-2021-23337',
        advisoryId: 'GHSA-35jh-r3h4-6jhm',
        aliases: ['GHSA-35jh-r3h4-6jhm'],
        summary: 'Command Injection in lodash',
        cwes: ['CWE-94', 'CWE-77'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', score: 7.2, severity: 'HIGH' },
        cvssV4: {
          vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:H/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
          score: 8.6,
          severity: 'HIGH',
        },
        epss: { score: 0.01234, percentile: 0.8512 },
        fixedVersions: ['4.17.21'],
      }),
      vexFinding({
        id: '66666666-6666-4666-8666-666666666666',
        componentRef: 'SPDXRef-Package-busybox-1.36.1',
        cveId: 'CVE-2022-48174',
        advisoryId: null,
        aliases: [],
        summary: 'Stack overflow vulnerability in ash.c:6030 in busybox before 1.35.',
        cwes: ['CWE-787'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8, severity: 'CRITICAL' },
        disposition: vexDisposition({
          status: 'not_affected',
          justification: 'component_not_present',
          detail: 'busybox is only present in the build stage, not in the shipped image.',
        }),
      }),
      vexFinding({
        id: '77777777-7777-4777-8777-777777777777',
        componentRef: 'internal-plugin-host',
        cveId: null,
        advisoryId: 'GHSA-q3x9-6j7v-4r2m',
        aliases: [],
        summary: 'Plugin host loads plugins from a world-writable directory.',
        cvssV3: { vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H', score: 8.8, severity: 'HIGH' },
        disposition: vexDisposition({
          status: 'affected',
          response: 'will_not_fix',
          actionStatement:
            'Disable third-party plugins (plugins.enabled=false) or restrict permissions on the plugin directory.',
          impactStatement: 'A local user can execute code as the service account.',
        }),
      }),
      vexFinding({
        id: '88888888-8888-4888-8888-888888888881',
        componentRef: 'pkg:npm/semver@5.1.0',
        cveId: 'CVE-2022-25883',
        advisoryId: 'GHSA-c2qf-rxjj-qqgw',
        aliases: ['GHSA-c2qf-rxjj-qqgw'],
        summary: 'semver vulnerable to Regular Expression Denial of Service',
        cwes: ['CWE-1333'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: 7.5, severity: 'HIGH' },
        disposition: vexDisposition({
          status: 'not_affected',
          justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
          detail: 'Only build-time version strings from package.json reach semver.',
        }),
      }),
      vexFinding({
        id: '88888888-8888-4888-8888-888888888882',
        componentRef: 'pkg:npm/semver@7.3.8',
        cveId: 'CVE-2022-25883',
        advisoryId: 'GHSA-c2qf-rxjj-qqgw',
        aliases: ['GHSA-c2qf-rxjj-qqgw'],
        cwes: ['CWE-1333'],
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: 7.5, severity: 'HIGH' },
        fixedVersions: ['7.5.2'],
        disposition: vexDisposition({
          status: 'not_affected',
          justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
          detail: 'Only build-time version strings from package.json reach semver.',
        }),
      }),
      vexFinding({
        id: '99999999-9999-4999-8999-999999999999',
        componentRef: 'pkg:npm/semver@7.3.8',
        cveId: 'CVE-2015-8855',
        advisoryId: null,
        aliases: [],
        summary: 'The semver package before 4.3.2 for Node.js allows attackers to cause a denial of service.',
        cvssV2: { vector: 'AV:N/AC:L/Au:N/C:N/I:N/A:C', score: 7.8, severity: 'HIGH' },
        disposition: vexDisposition({
          status: 'not_affected',
          justification: 'inline_mitigations_already_exist',
          detail: 'Version strings longer than 256 characters are rejected before parsing.',
        }),
      }),
    ],
  });
}

const STATUSES = [...DISPOSITION_STATUSES, 'untriaged'] as const;

/** `findingCount` findings over `findingCount / 5` npm components; deterministic (no randomness). */
export function buildScaleVexInput(findingCount = 2000): VexGenerationInput {
  const componentCount = Math.max(1, Math.floor(findingCount / 5));
  const components = Array.from({ length: componentCount }, (_, i) => ({
    ref: `pkg:npm/pkg-${i}@1.${i % 10}.0`,
    name: `pkg-${i}`,
    version: `1.${i % 10}.0`,
    purl: `pkg:npm/pkg-${i}@1.${i % 10}.0`,
    cpes: [],
  }));
  const findings = Array.from({ length: findingCount }, (_, i): VexFinding => {
    const kind = STATUSES[i % STATUSES.length]!;
    const cve = `CVE-20${String(20 + (i % 5))}-${String(10000 + Math.floor(i / 2))}`; // most CVEs hit two components
    return vexFinding({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      componentRef: components[i % componentCount]!.ref,
      cveId: cve,
      advisoryId: `GHSA-${String(i).padStart(4, '0')}-abcd-efgh`,
      aliases: [`GHSA-${String(i).padStart(4, '0')}-abcd-efgh`],
      summary: `Synthetic vulnerability ${i} for scale testing.`,
      cwes: ['CWE-79'],
      cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', score: 6.1, severity: 'MEDIUM' },
      cvssV2: i % 3 === 0 ? { vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N', score: 4.3, severity: 'MEDIUM' } : null,
      epss: { score: (i % 100) / 1000, percentile: (i % 100) / 100 },
      isKev: i % 97 === 0,
      fixedVersions: [`1.${i % 10}.1`],
      disposition:
        kind === 'untriaged'
          ? null
          : vexDisposition({
              status: kind,
              justification: kind === 'not_affected' ? JUSTIFICATIONS[i % JUSTIFICATIONS.length]! : null,
              response: kind === 'affected' ? RESPONSES[i % RESPONSES.length]! : null,
              detail: i % 4 === 0 ? `Analyst note ${i % 7}.` : null,
            }),
    });
  });
  return baseVexInput({ components, findings });
}

const FORMATS: readonly VexFormat[] = ['cyclonedx_vex', 'openvex', 'csaf'];

/** Prints and returns the median wall time (generation + serialisation) per format. */
export function benchVexGeneration(findingCount = 2000, runs = 15): Record<VexFormat, number> {
  const input = buildScaleVexInput(findingCount);
  const medians = {} as Record<VexFormat, number>; // filled for every format below
  for (const format of FORMATS) {
    serializeVex(generateVex(format, input)); // warm-up (JIT, schema compilation of zod)
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      serializeVex(generateVex(format, input));
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    medians[format] = Number(times[Math.floor(times.length / 2)]!.toFixed(1));
  }
  console.log(`VEX generation, ${findingCount} findings, median of ${runs} runs (target <= 300 ms):`);
  for (const format of FORMATS) console.log(`  ${format.padEnd(14)} ${medians[format]} ms`);
  return medians;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchVexGeneration();
}
