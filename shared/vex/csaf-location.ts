/**
 * Where a team's CSAF documents live, for `document.references[category=self]` (CSAF optional
 * test 6.2.11: an https URL ending in the file name CSAF 2.0 section 5.3.1 derives from
 * `tracking.id`). The layout is the CSAF provider directory's (section 7.1.11: one folder per
 * TLP label and year of `initial_release_date`); this is the one function to change if that
 * directory moves.
 */
import { config } from '../config';

/** CSAF file name of a tracking id (section 5.3.1): lower case, runs of other characters as `_`, then `.json`. */
export function csafFileName(trackingId: string): string {
  return `${trackingId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`;
}

export function csafCanonicalUrl(teamId: string, trackingId: string, initialReleaseDate: string): string {
  const year = initialReleaseDate.slice(0, 4);
  return `${config().publicBaseUrl}/csaf/${encodeURIComponent(teamId)}/white/${year}/${csafFileName(trackingId)}`;
}
