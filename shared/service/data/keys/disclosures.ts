/**
 * Keys of what is published: public disclosures and their snapshots, counters and index, the
 * files beside a snapshot, a team's CSAF provider, and a team's publisher keys.
 */
import { teamPk, type Key } from './partitions';

export const disclosureKeys = {
  /** Public disclosures: global (they outlive the team's product), one item per published snapshot. */
  disclosure: (slug: string): Key => ({ pk: `DISCLOSURE#${slug}`, sk: 'DISCLOSURE' }),
  /** Snapshots of one VEX document, by version, so a disclosure lists its siblings. */
  disclosureOfDocument: (vexId: string, version: number): Key => ({
    pk: `DISCLOSED_DOC#${vexId}`,
    sk: `V#${String(version).padStart(6, '0')}`,
  }),
  disclosureOfDocumentPrefix: (vexId: string) => ({ pk: `DISCLOSED_DOC#${vexId}`, skPrefix: 'V#' }),
  /** Publication counters and sequence-numbered index items: page N of the list is one range query. */
  disclosureCounter: (format: string): Key => ({ pk: 'DISCLOSURE_COUNTER', sk: format }),
  disclosureIndexEntry: (format: string, sequence: number): Key => ({
    pk: `DISCLOSURE_INDEX#${format}`,
    sk: String(sequence).padStart(12, '0'),
  }),
  disclosureIndexPartition: (format: string) => ({ pk: `DISCLOSURE_INDEX#${format}` }),
  disclosureSequenceKey: (sequence: number) => String(sequence).padStart(12, '0'),
  disclosureObject: (slug: string) => `disclosures/${slug}/content`,

  /**
   * A team's CSAF provider (docs/csaf-provider.md): a global partition per team, outside `TEAM#`, so the
   * public provider routes read it without any grant on the team's own items. `PROVIDER`: the
   * publisher and directory name; `DOC#<file base>`: the current revision of a release's CSAF;
   * `RELEASE#<releaseId>`: which file base the release's CSAF has.
   */
  csafProvider: (teamId: string): Key => ({ pk: `CSAF_PROVIDER#${teamId}`, sk: 'PROVIDER' }),
  csafDocument: (teamId: string, fileBase: string): Key => ({ pk: `CSAF_PROVIDER#${teamId}`, sk: `DOC#${fileBase}` }),
  csafDocumentPrefix: (teamId: string) => ({ pk: `CSAF_PROVIDER#${teamId}`, skPrefix: 'DOC#' }),
  csafReleaseDocument: (teamId: string, releaseId: string): Key => ({
    pk: `CSAF_PROVIDER#${teamId}`,
    sk: `RELEASE#${releaseId}`,
  }),
  /** Public directory name → team; unique across the deployment. */
  csafDirectoryClaim: (directory: string): Key => ({ pk: `CSAF_DIRECTORY#${directory}`, sk: 'CSAF_DIRECTORY' }),
  /** Files published beside a snapshot (signature, checksums, DSSE attestation); names in shared/service/disclosures/disclosure-files.ts. */
  disclosureFileObject: (slug: string, suffix: string) => `disclosures/${slug}/content.${suffix}`,
  /**
   * A team's publisher keys: public halves in their own partition, in the order they were made (a
   * sequence number: OpenPGP creation times have one-second resolution); the head names the current key.
   */
  publisherKeyPrefix: (teamId: string) => ({ pk: `${teamPk(teamId)}#PUBLISHER_KEYS`, skPrefix: 'KEY#' }),
  publisherKey: (teamId: string, sequence: number): Key => ({
    pk: `${teamPk(teamId)}#PUBLISHER_KEYS`,
    sk: `KEY#${String(sequence).padStart(6, '0')}`,
  }),
  publisherKeyHead: (teamId: string): Key => ({ pk: `${teamPk(teamId)}#PUBLISHER_KEYS`, sk: 'HEAD' }),
  /** The sealed private key (KMS ciphertext on AWS), never in the partition the public function reads. */
  publisherPrivateKey: (teamId: string, fingerprint: string): Key => ({
    pk: teamPk(teamId),
    sk: `PUBLISHER_PRIVATE_KEY#${fingerprint}`,
  }),
} as const;
