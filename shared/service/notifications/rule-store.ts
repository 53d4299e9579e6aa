/** Data module of notification rules: the only code that reads or writes their items. */
import { keys } from '../data/keys';
import {
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
  type TransactItem,
} from '../data/table-client';
import { ruleFiltersSchema, type NotificationRule } from '../schemas/notifications';

export interface StoredRule extends NotificationRule {
  teamId: string;
}

function toRule(item: Item): StoredRule {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    name: String(item.name),
    channelId: String(item.channelId),
    eventTypes: item.eventTypes as NotificationRule['eventTypes'],
    filters: ruleFiltersSchema.parse(item.filters ?? {}),
    mode: item.mode as NotificationRule['mode'],
    digestHour: Number(item.digestHour ?? 8),
    digestTimeZone: typeof item.digestTimeZone === 'string' ? item.digestTimeZone : 'UTC',
    enabled: item.enabled !== false,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

export function toRuleView(rule: StoredRule): NotificationRule {
  const { teamId: _teamId, ...view } = rule;
  return view;
}

function ruleItem(rule: StoredRule): Item {
  return { ...keys.notificationRule(rule.teamId, rule.id), entity: 'NotificationRule', ...rule };
}

/** A write whose first item's condition failed answers false instead of throwing. */
async function conditionalWrite(items: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
    throw error;
  }
}

export const RuleStore = {
  /** Writes the rule with its audit entry, on the condition that its channel exists. */
  async create(rule: StoredRule, audit: TransactItem): Promise<boolean> {
    return conditionalWrite([
      tx.check(keys.notificationChannel(rule.teamId, rule.channelId), 'attribute_exists(pk)'),
      tx.create(ruleItem(rule)),
      audit,
    ]);
  },

  async replace(rule: StoredRule, audit: TransactItem): Promise<boolean> {
    return conditionalWrite([
      tx.check(keys.notificationChannel(rule.teamId, rule.channelId), 'attribute_exists(pk)'),
      tx.put(ruleItem(rule), 'attribute_exists(pk)'),
      audit,
    ]);
  },

  async get(teamId: string, ruleId: string): Promise<StoredRule | undefined> {
    const item = await getItem(keys.notificationRule(teamId, ruleId));
    return item ? toRule(item) : undefined;
  },

  /** Oldest first. */
  async list(teamId: string): Promise<StoredRule[]> {
    return (await queryAll(keys.notificationRulePrefix(teamId)))
      .map(toRule)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  async delete(teamId: string, ruleId: string, audit: TransactItem): Promise<boolean> {
    return conditionalWrite([tx.delete(keys.notificationRule(teamId, ruleId), 'attribute_exists(pk)'), audit]);
  },
};
