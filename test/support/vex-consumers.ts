/**
 * The VEX matching rules of the scanners our documents are made for, ported from their source
 * (read with the code search; each function names the file it follows). Small and faithful
 * rather than complete: only the paths a scan of an SBOM or an image takes through a VEX file.
 * One module per consumer under test/support/vex-consumers/.
 * Used by test/unit/vex-consumers.test.ts and test/integration/vex-interop.test.ts.
 */
export type { Detected } from './vex-consumers/common';
export { parseBomLink, trivyCycloneDx } from './vex-consumers/trivy-cyclonedx';
export {
  componentMatches,
  grypeImageIdentifiers,
  grypeOpenVex,
  openVexMatches,
  purlMatches,
  trivyOpenVex,
} from './vex-consumers/openvex';
export { grypeCsaf, trivyCsaf } from './vex-consumers/csaf';
export { gocsafLoadAdvisory } from './vex-consumers/gocsaf';
export { dependencyTrackApplyVex, type DtProjectFinding } from './vex-consumers/dependency-track';
