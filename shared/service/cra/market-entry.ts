/**
 * Cases open when a release enters the market (docs/cra-reporting.md "When a case opens"): a product put
 * in scope, or a release of an in-scope product whose status or release date now puts it on the market.
 * Its findings are already stored, so nothing else would look at them until the next scan or corpus
 * change; this hands them to the same case opening as a scan, with the moment of the change as the
 * earliest awareness (Vexdesk held every fact from then on, not before).
 *
 * Runs after the product's or release's change has committed. A failure is logged, not answered: the
 * change stands, and the release's next scan or re-evaluation opens the case (the product's
 * `craInScopeSince` and the release date keep its awareness no earlier than the market entry).
 */
import { logger } from '../logger';
import type { Product } from '../products/product-store';
import { releaseStore, type Release } from '../releases/release-store';
import { findingStore } from '../scans/finding-store';
import { CraCaseOpening } from './case-opening';
import { isOnMarket } from './rules';

async function releaseEntered(product: Product, release: Release, at: string): Promise<void> {
  if (!isOnMarket(product, release, at)) return;
  const findings = await findingStore.listByRelease(product.teamId, product.id, release.id);
  if (!findings.some((finding) => !finding.noLongerDetected)) return;
  await CraCaseOpening.findingsStored({ product, release, findings, components: [], onMarketSince: at });
}

async function logged(what: string, product: Product, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    logger.error('CRA cases of a market entry not opened; the next scan or re-evaluation opens them', {
      what,
      teamId: product.teamId,
      productId: product.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export const CraMarketEntry = {
  /** The product was put in scope at `at`: every release of it on the market now. */
  async productEnteredScope(product: Product, at: string): Promise<void> {
    await logged('product', product, async () => {
      for (const release of await releaseStore.listByProduct(product.teamId, product.id))
        await releaseEntered(product, release, at);
    });
  },

  /** A release changed at `at`: when its status or release date put it on the market then, its cases open. */
  async releaseChanged(product: Product, before: Release, after: Release, at: string): Promise<void> {
    if (isOnMarket(product, before, at) || !isOnMarket(product, after, at)) return;
    await logged('release', product, () => releaseEntered(product, after, at));
  },
};
