/**
 * What one dispatcher pass reads once and reuses: each team's rules and channels (one query each, not a read per
 * attempt), the channels' opened secrets, release statuses, and the attempt records it gathers into
 * transactions. A pass lasts seconds; what it changes itself (a channel disabled, a failure counted) it keeps
 * in step, and the next pass reads everything afresh.
 */
import { keys } from '../data/keys';
import { getItem, updateItem } from '../data/table-client';
import { UpdateBatcher, type ConditionalUpdate } from '../data/update-batcher';
import type { TeamEvent } from '../events/event-store';
import { toRelease, type ReleaseStatus } from '../releases/release-store';
import { ChannelStore, openSecrets, type ChannelSecrets, type StoredChannel } from './channel-store';
import { RuleStore, type StoredRule } from './rule-store';

/** An attempt that has not recorded its outcome by then (the process died) is owed again. */
const LEASE_MS = 60_000;

export const leaseEnd = () => new Date(Date.now() + LEASE_MS).toISOString();

/** Requests wait mostly on the receiver, so many may be in flight; a pass makes at most this many at once. */
const CONCURRENT_SENDS = 64;

/** What one team's rules and channels are. */
export interface TeamRouting {
  rules: StoredRule[];
  channels: Map<string, StoredChannel>;
}

export class DispatchPass {
  private readonly channels = new Map<string, Promise<Map<string, StoredChannel>>>();
  private readonly routing = new Map<string, Promise<TeamRouting>>();
  private readonly secrets = new Map<string, Promise<ChannelSecrets>>();
  private readonly releaseStatus = new Map<string, Promise<ReleaseStatus | undefined>>();
  private readonly batcher: UpdateBatcher | undefined;
  /** Channels whose failure the pass has counted (or found counted lately) since their last success. */
  private readonly failureCounted = new Set<string>();
  private sendsInFlight = 0;
  /** When the earliest retry the pass scheduled is due (epoch ms); undefined when it scheduled none. */
  nextRetryAt: number | undefined;
  private readonly waitingToSend: (() => void)[] = [];

  /** `batchRecords`: gather attempt records into transactions (the background passes; a single test attempt writes its own). */
  constructor(options: { batchRecords: boolean } = { batchRecords: false }) {
    this.batcher = options.batchRecords ? new UpdateBatcher() : undefined;
  }

  teamChannels(teamId: string): Promise<Map<string, StoredChannel>> {
    let channels = this.channels.get(teamId);
    if (!channels) {
      channels = ChannelStore.list(teamId).then((list) => new Map(list.map((channel) => [channel.id, channel])));
      this.channels.set(teamId, channels);
    }
    return channels;
  }

  async channel(teamId: string, channelId: string): Promise<StoredChannel | undefined> {
    return (await this.teamChannels(teamId)).get(channelId);
  }

  routingOf(teamId: string): Promise<TeamRouting> {
    let routing = this.routing.get(teamId);
    if (!routing) {
      routing = Promise.all([RuleStore.list(teamId), this.teamChannels(teamId)]).then(([rules, channels]) => ({
        rules: rules.filter((rule) => rule.enabled),
        channels,
      }));
      this.routing.set(teamId, routing);
    }
    return routing;
  }

  /** The channel's URL and signing secret, opened once per pass. */
  secretsOf(channel: StoredChannel): Promise<ChannelSecrets> {
    const id = `${channel.teamId}#${channel.id}`;
    let secrets = this.secrets.get(id);
    if (!secrets) {
      secrets = openSecrets(channel);
      // A failure to open is not kept: the next attempt tries again.
      secrets.catch(() => this.secrets.delete(id));
      this.secrets.set(id, secrets);
    }
    return secrets;
  }

  releaseStatusOf(event: TeamEvent): Promise<ReleaseStatus | undefined> {
    if (!event.productId || !event.releaseId) return Promise.resolve(undefined);
    let status = this.releaseStatus.get(event.releaseId);
    if (!status) {
      status = getItem(keys.release(event.teamId, event.productId, event.releaseId)).then((item) =>
        item ? toRelease(item).status : undefined,
      );
      this.releaseStatus.set(event.releaseId, status);
    }
    return status;
  }

  /** Runs a request to a receiver once fewer than CONCURRENT_SENDS of the pass's are in flight. */
  async sending<T>(request: () => Promise<T>): Promise<T> {
    if (this.sendsInFlight >= CONCURRENT_SENDS) await new Promise<void>((resolve) => this.waitingToSend.push(resolve));
    else this.sendsInFlight += 1;
    try {
      return await request();
    } finally {
      // The slot passes straight to the next waiting request, or is given back.
      const next = this.waitingToSend.shift();
      if (next) next();
      else this.sendsInFlight -= 1;
    }
  }

  /**
   * Counts a failure of the channel toward disabling it (ChannelStore.recordFailure: at most one per
   * `spacingMs`). The pass asks the table once per channel until a success: its other failures, moments later,
   * would not count either. Answers the new count, or 0 when this one did not count.
   */
  async countFailure(channel: StoredChannel, spacingMs: number): Promise<number> {
    const id = `${channel.teamId}#${channel.id}`;
    if (this.failureCounted.has(id)) return 0;
    this.failureCounted.add(id);
    return ChannelStore.recordFailure(channel.teamId, channel.id, new Date(), spacingMs);
  }

  /** The channel answered: its next failure counts again. */
  succeeded(channel: StoredChannel): void {
    this.failureCounted.delete(`${channel.teamId}#${channel.id}`);
  }

  /** A failed attempt is owed again at `at` (epoch ms). */
  owedAgainAt(at: number): void {
    this.nextRetryAt = Math.min(this.nextRetryAt ?? at, at);
  }

  /** Writes an attempt's record (gathered with others when batching); false when its condition did not hold. */
  async record(write: ConditionalUpdate): Promise<boolean> {
    if (this.batcher) return this.batcher.update(write);
    return (await updateItem(write.key, write.update, write.names, write.values, write.condition)) !== undefined;
  }

  /** Waits until every record of the pass is written. */
  async finish(): Promise<void> {
    await this.batcher?.drain();
  }
}
