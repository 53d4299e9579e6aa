/**
 * Names in a team's CSAF provider directory (docs/csaf-provider.md): the tracking id of a
 * release's CSAF, its file name (CSAF 2.0 section 5.1) and its year folder (requirement 11).
 */
import { trimChar } from '../text';

/**
 * CSAF 2.0 section 5.1: the tracking id in lower case, every run of characters other than
 * `a-z`, `0-9`, `+` and `-` replaced by one `_`, then `.json` (without the extension here).
 */
export function csafFileBase(trackingId: string): string {
  return trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_');
}

/** CSAF 2.0 section 5.1 applied to a file name: what `csaf_downloader` calls a conforming file name. */
export function isConformingCsafFileName(fileName: string): boolean {
  return /^[+\-a-z0-9_]+\.json$/.test(fileName) && !fileName.includes('__');
}

function part(value: string, max: number): string {
  return trimChar(value.toLowerCase().replace(/[^a-z0-9.+]+/g, '-'), '-').slice(0, max) || 'x';
}

/**
 * The tracking id of a release's CSAF: product slug and release version for people, eight hex
 * digits of the release id for uniqueness within the publisher's namespace. It is chosen at the
 * release's first CSAF publication and stored, so renaming the product or the version later
 * does not change it (CSAF: one tracking id for every revision of a document).
 */
export function newTrackingId(productSlug: string, releaseVersion: string, releaseId: string): string {
  return `${part(productSlug, 60)}-${part(releaseVersion, 40)}-${releaseId.replace(/-/g, '').slice(0, 8)}`;
}

/** Requirement 11: the folder is the UTC year of `/document/tracking/initial_release_date`. */
export function csafYear(initialReleaseDate: string): string {
  return String(new Date(initialReleaseDate).getUTCFullYear());
}
