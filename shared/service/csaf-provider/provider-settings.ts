/**
 * The team setting `csafProvider`: public directory name and CSAF publisher
 * (docs/csaf-provider.md). Stored in the provider's own partition, not on the team item,
 * so the public provider routes read it without touching team data; changed in the same
 * transaction as the rest of the settings and their audit entry.
 */
import { config } from '../config';
import { transactWrite, TransactionFailedError, type TransactItem } from '../data/table-client';
import { ConflictError } from '../errors';
import type { CsafPublisher } from '../schemas/csaf-provider';
import type { CsafProviderView } from '../schemas/compliance';
import { csafProviderStore, type CsafProviderSettings } from './provider-store';
import { providerBaseUrl } from './urls';

export interface CsafProviderSettingInput {
  directory: string;
  publisher: CsafPublisher;
}

function view(settings: Pick<CsafProviderSettings, 'directory' | 'publisher'>): CsafProviderView {
  return {
    directory: settings.directory,
    publisher: settings.publisher,
    providerMetadataUrl: `${providerBaseUrl(settings.directory)}/provider-metadata.json`,
    wellKnown: config().csafDefaultProvider === settings.directory,
  };
}

export const CsafProviderSettingsService = {
  async get(teamId: string) {
    const current = await csafProviderStore.settings(teamId);
    return {
      view: current ? view(current) : null,
      change(input: CsafProviderSettingInput | null) {
        const unchanged =
          input !== null &&
          current !== undefined &&
          JSON.stringify([input.directory, input.publisher]) === JSON.stringify([current.directory, current.publisher]);
        const next = input
          ? {
              directory: input.directory,
              publisher: input.publisher,
              updatedAt: unchanged ? current.updatedAt : new Date().toISOString(),
            }
          : null;
        const { items, claimIndex } = csafProviderStore.settingsItems(teamId, current, next);
        return {
          view: next ? view(next) : null,
          /** Commits the provider change together with `other` (the settings update and its audit entry). */
          async commit(other: TransactItem[]): Promise<void> {
            try {
              await transactWrite([...items, ...other]);
            } catch (error) {
              if (error instanceof TransactionFailedError && claimIndex !== null && error.failedAt(claimIndex)) {
                throw new ConflictError(
                  `The CSAF directory name "${input?.directory ?? ''}" is taken by another team`,
                  'csaf_directory_taken',
                );
              }
              throw error;
            }
          },
        };
      },
    };
  },
};
