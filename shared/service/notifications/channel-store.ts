/**
 * Data module of notification channels: the only code that reads or writes their items. A channel's URL and
 * signing secret are sealed (shared/service/disclosures/key-vault.ts: KMS on AWS, the local seal locally),
 * bound to the team and channel, and opened only to deliver; reads show a redacted target.
 */
import { keyVault } from '../disclosures/key-vault';
import { keys } from '../data/keys';
import {
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  updateItem,
  type Item,
  type TransactItem,
} from '../data/table-client';
import type { ChannelType, ChannelView } from '../schemas/notifications';

/** What is sealed: a webhook's URL and secret, a Slack URL. */
export interface ChannelSecrets {
  url?: string;
  secret?: string;
}

export interface StoredChannel {
  id: string;
  teamId: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  target: string;
  recipients?: string[];
  /** An e-mail channel to the members who may approve, resolved per message (./approvers.ts). */
  approvers?: boolean;
  sealed: string | null;
  createdAt: string;
  updatedAt: string;
}

const sealContext = (teamId: string, channelId: string) => ({
  teamId,
  channelId,
  purpose: 'notification-channel',
});

export async function sealSecrets(teamId: string, channelId: string, secrets: ChannelSecrets): Promise<string> {
  return keyVault().seal(Buffer.from(JSON.stringify(secrets), 'utf8'), sealContext(teamId, channelId));
}

export async function openSecrets(channel: StoredChannel): Promise<ChannelSecrets> {
  if (channel.sealed === null) return {};
  const opened = await keyVault().open(channel.sealed, sealContext(channel.teamId, channel.id));
  return JSON.parse(opened.toString('utf8')) as ChannelSecrets;
}

function toChannel(item: Item): StoredChannel {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    name: String(item.name),
    type: item.type as ChannelType,
    enabled: item.enabled !== false,
    disabledReason: typeof item.disabledReason === 'string' ? item.disabledReason : null,
    consecutiveFailures: Number(item.consecutiveFailures ?? 0),
    target: String(item.target),
    ...(Array.isArray(item.recipients) ? { recipients: item.recipients as string[] } : {}),
    ...(item.approvers === true ? { approvers: true } : {}),
    sealed: typeof item.sealed === 'string' ? item.sealed : null,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

export function toChannelView(channel: StoredChannel): ChannelView {
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    enabled: channel.enabled,
    disabledReason: channel.disabledReason,
    target: channel.target,
    ...(channel.recipients ? { recipients: channel.recipients } : {}),
    ...(channel.approvers ? { approvers: true } : {}),
    consecutiveFailures: channel.consecutiveFailures,
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
  };
}

function channelItem(channel: StoredChannel): Item {
  return { ...keys.notificationChannel(channel.teamId, channel.id), entity: 'NotificationChannel', ...channel };
}

export const ChannelStore = {
  async create(channel: StoredChannel, audit: TransactItem): Promise<void> {
    await transactWrite([tx.create(channelItem(channel)), audit]);
  },

  async get(teamId: string, channelId: string): Promise<StoredChannel | undefined> {
    const item = await getItem(keys.notificationChannel(teamId, channelId));
    return item ? toChannel(item) : undefined;
  },

  /** Oldest first. */
  async list(teamId: string): Promise<StoredChannel[]> {
    return (await queryAll(keys.notificationChannelPrefix(teamId)))
      .map(toChannel)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  /** Replaces the channel with its new state and writes the audit entry; false when it was deleted meanwhile. */
  async replace(channel: StoredChannel, audit: TransactItem): Promise<boolean> {
    try {
      await transactWrite([tx.put(channelItem(channel), 'attribute_exists(pk)'), audit]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  },

  async delete(teamId: string, channelId: string, audit: TransactItem): Promise<boolean> {
    try {
      await transactWrite([tx.delete(keys.notificationChannel(teamId, channelId), 'attribute_exists(pk)'), audit]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  },

  /** A 2xx: the failure streak ends. */
  async recordSuccess(teamId: string, channelId: string): Promise<void> {
    await updateItem(
      keys.notificationChannel(teamId, channelId),
      'SET consecutiveFailures = :zero REMOVE lastCountedFailureAt',
      undefined,
      { ':zero': 0 },
      'attribute_exists(pk) AND consecutiveFailures <> :zero',
    );
  },

  /**
   * One more failure in a row, counted at most once per `spacingMs`: a burst of deliveries failing during a short
   * outage is one failure of the receiver, not hundreds. Answers the new count, or 0 when this one was not
   * counted (or the channel is gone).
   */
  async recordFailure(teamId: string, channelId: string, at: Date, spacingMs: number): Promise<number> {
    const result = await updateItem(
      keys.notificationChannel(teamId, channelId),
      'ADD consecutiveFailures :one SET lastCountedFailureAt = :at',
      undefined,
      { ':one': 1, ':at': at.toISOString(), ':counted': new Date(at.getTime() - spacingMs).toISOString() },
      'attribute_exists(pk) AND (attribute_not_exists(lastCountedFailureAt) OR lastCountedFailureAt <= :counted)',
    );
    return Number(result?.consecutiveFailures ?? 0);
  },

  /** Disables an enabled channel with its audit entry (and whatever else goes with it); false when it already was. */
  async disable(
    teamId: string,
    channelId: string,
    reason: string,
    at: string,
    along: TransactItem[],
  ): Promise<boolean> {
    try {
      await transactWrite([
        tx.update(
          keys.notificationChannel(teamId, channelId),
          'SET #enabled = :false, disabledReason = :reason, updatedAt = :at',
          { '#enabled': 'enabled' },
          { ':false': false, ':reason': reason, ':at': at, ':true': true },
          'attribute_exists(pk) AND #enabled = :true',
        ),
        ...along,
      ]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  },
};
