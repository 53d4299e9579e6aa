/** The partition keys and sort-key prefixes several key families share. */

export type Key = { pk: string; sk: string };

export const teamPk = (teamId: string) => `TEAM#${teamId}`;
export const productPk = (teamId: string, productId: string) => `TEAM#${teamId}#PRODUCT#${productId}`;
export const releasePrefix = (releaseId: string) => `R#${releaseId}#`;
