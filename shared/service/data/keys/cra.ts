/**
 * Keys of CRA Article 14 reporting (shared/service/cra/): a team's cases, their draft versions and the
 * advisories its members marked actively exploited, in the team's CRA partition; live cases also sit
 * in a sparse gsi1 partition the deadline check reads for every team at once.
 */
import { teamPk, type Key } from './partitions';

const craPk = (teamId: string) => `${teamPk(teamId)}#CRA`;
const OPEN_CASES = 'CRA#OPEN';

export const craKeys = {
  craCase: (teamId: string, caseId: string): Key => ({ pk: craPk(teamId), sk: `CASE#${caseId}` }),
  craCases: (teamId: string) => ({ pk: craPk(teamId), skPrefix: 'CASE#' }),
  /** One version of a stage's draft fields, numbered from 1 (zero-padded so versions sort). */
  craDraftVersion: (teamId: string, caseId: string, stage: string, version: number): Key => ({
    pk: craPk(teamId),
    sk: `DRAFT#${caseId}#${stage}#${String(version).padStart(6, '0')}`,
  }),
  craDraftVersions: (teamId: string, caseId: string, stage: string) => ({
    pk: craPk(teamId),
    skPrefix: `DRAFT#${caseId}#${stage}#`,
  }),
  /** A member's statement that a vulnerability is actively exploited (by its CVE, or advisory id without one). */
  craExploitation: (teamId: string, vulnerabilityId: string): Key => ({
    pk: craPk(teamId),
    sk: `EXPLOITED#${vulnerabilityId}`,
  }),
  /** The live-case index entry (sparse gsi1), set while a case counts down. */
  craOpenIndex: (teamId: string, caseId: string) => ({ gsi1pk: OPEN_CASES, gsi1sk: `${teamId}#${caseId}` }),
  craOpenPartition: () => ({ gsi1pk: OPEN_CASES }),
} as const;
