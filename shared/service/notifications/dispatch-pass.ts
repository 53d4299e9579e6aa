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

/** Transactions of new deliveries (up to 100 items each) a pass that is behind writes at once, its requests made. */
const CONCURRENT_WRITES = 8;

/** At most `limit` tasks at a time, and none while `held()`; the others wait in order. */
class Limiter {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly held: () => boolean = () => false,
  ) {}

  /** Whether a task runs or waits. */
  get busy(): boolean {
    return this.inFlight > 0 || this.waiting.length > 0;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.limit || this.held()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiting task, or is given back.
      const next = this.held() ? undefined : this.waiting.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  /** Starts waiting tasks, up to the limit, now that they are no longer held. */
  release(): void {
    while (!this.held() && this.inFlight < this.limit && this.waiting.length > 0) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
  }
}

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
  private readonly sends = new Limiter(CONCURRENT_SENDS);
  // Held while requests are waiting or in flight: see writing().
  private readonly writes = new Limiter(CONCURRENT_WRITES, () => this.sends.busy);
  private behind = false;
  /** When the earliest retry the pass scheduled is due (epoch ms); undefined when it scheduled none. */
  nextRetryAt: number | undefined;

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
    try {
      return await this.sends.run(request);
    } finally {
      if (!this.sends.busy) this.writes.release();
    }
  }

  /**
   * Runs a write of deliveries already sent: at once while the pass keeps up, its writes beside its requests, so
   * that it ends soon and the next begins. Once it is behind (`fallBehind`), only when it has no request waiting
   * or in flight, CONCURRENT_WRITES at a time: in a burst the requests go first, since the records' writes (the
   * SDK's marshalling on this thread, the table's work) would otherwise take their turns between them and every
   * later event would wait for the earlier ones' records. A write that has begun runs to its end.
   */
  writing<T>(write: () => Promise<T>): Promise<T> {
    return this.behind ? this.writes.run(write) : write();
  }

  /** The outbox holds more than a page: from now on the pass's requests go before its writes. */
  fallBehind(): void {
    this.behind = true;
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
