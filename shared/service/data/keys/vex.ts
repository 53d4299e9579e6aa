/** Keys of VEX documents: the document items and their approval records, and the S3 objects of each version. */
import { productPk, releasePrefix, type Key } from './partitions';

export const vexKeys = {
  vexDocument: (teamId: string, productId: string, releaseId: string, vexId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}VEX#${vexId}`,
  }),
  vexDocumentPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}VEX#`,
  }),
  approval: (
    teamId: string,
    productId: string,
    releaseId: string,
    vexId: string,
    at: string,
    approvalId: string,
  ): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}APPROVAL#${vexId}#${at}#${approvalId}`,
  }),
  approvalPrefix: (teamId: string, productId: string, releaseId: string, vexId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}APPROVAL#${vexId}#`,
  }),
  vexContentObject: (teamId: string, productId: string, releaseId: string, vexId: string, version: number) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/vex/${vexId}/v${version}.json`,
  vexInputObject: (teamId: string, productId: string, releaseId: string, vexId: string, version: number) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/vex/${vexId}/v${version}.input.json`,
} as const;
