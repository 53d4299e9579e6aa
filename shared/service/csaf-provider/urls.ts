/** Public URLs of a team's CSAF provider; the paths are the route table's (shared/service/http/routes.ts). */
import { config } from '../config';

export const CSAF_PROVIDER_PATH = '/api/disclosures/csaf';

export function providerBaseUrl(directory: string): string {
  return `${config().publicBaseUrl}${CSAF_PROVIDER_PATH}/${directory}`;
}

/** The TLP:WHITE directory: year folders, index.txt, changes.csv, the ROLIE feed and its category document. */
export function whiteDirectoryUrl(directory: string): string {
  return `${providerBaseUrl(directory)}/white`;
}

/** Where a CSAF document's current revision is served (also its canonical URL, CSAF test 6.2.11). */
export function csafDocumentUrl(directory: string, year: string, fileBase: string): string {
  return `${whiteDirectoryUrl(directory)}/${year}/${fileBase}.json`;
}
