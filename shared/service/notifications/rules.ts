/**
 * Notification rules: which events of the team go to which channel, filtered, at once or as a daily digest.
 * A rule is a standing read of the team's data on someone's behalf, so nobody makes one that reads more than
 * they may (the event types' read scopes, products of the team). Every change is audited.
 */
import { randomUUID } from 'node:crypto';
import { auditPut } from '../audit/audit-log';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import type { Caller } from '../identity/actor';
import { productStore } from '../products/product-store';
import { EVENT_TYPES, type EventTypeName } from '../schemas/events';
import type { CreateRuleBody, NotificationRule, UpdateRuleBody } from '../schemas/notifications';
import { RuleStore, toRuleView, type StoredRule } from './rule-store';

/** The scope that reads what an event type reports. */
export function scopeToRead(type: EventTypeName): string {
  if (type.startsWith('scan.')) return 'sboms:read';
  if (type.startsWith('vex.')) return 'vex:read';
  if (type === 'channel.disabled' || type === 'apikey.expiring') return 'settings:read';
  return 'vulnerabilities:read';
}

async function assertWithinReach(caller: Caller, rule: StoredRule): Promise<void> {
  const missing = [...new Set(rule.eventTypes.map(scopeToRead))].filter((scope) => !caller.scopes.includes(scope));
  if (missing.length > 0)
    throw new ForbiddenError(`A rule may send only events the caller may read; not held: ${missing.sort().join(', ')}`);
  const productIds = rule.filters.productIds ?? [];
  if (productIds.length === 0) return;
  const found = new Set((await productStore.getMany(rule.teamId, productIds)).map((product) => product.id));
  const unknown = productIds.filter((id) => !found.has(id));
  if (unknown.length > 0)
    throw new ValidationError('Invalid notification rule', [
      { path: 'filters.productIds', message: `no product of this team has the id ${unknown[0] ?? ''}` },
    ]);
}

const channelMissing = () =>
  new ValidationError('Invalid notification rule', [
    { path: 'channelId', message: 'no channel of this team has this id' },
  ]);

export const NotificationRules = {
  async list(teamId: string): Promise<NotificationRule[]> {
    return (await RuleStore.list(teamId)).map(toRuleView);
  },

  async get(teamId: string, ruleId: string): Promise<NotificationRule> {
    const rule = await RuleStore.get(teamId, ruleId);
    if (!rule) throw new NotFoundError('Notification rule');
    return toRuleView(rule);
  },

  async create(caller: Caller, input: CreateRuleBody): Promise<NotificationRule> {
    const now = new Date().toISOString();
    const rule: StoredRule = {
      id: randomUUID(),
      teamId: caller.teamId,
      name: input.name,
      channelId: input.channelId,
      eventTypes: input.eventTypes ? [...new Set(input.eventTypes)] : [...EVENT_TYPES],
      filters: input.filters,
      mode: input.mode,
      digestHour: input.digestHour,
      digestTimeZone: input.digestTimeZone,
      enabled: input.enabled,
      createdAt: now,
      updatedAt: now,
    };
    await assertWithinReach(caller, rule);
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'create',
      entityType: 'notification_rule',
      entityId: rule.id,
      entityName: rule.name,
      changes: { channelId: rule.channelId, eventTypes: rule.eventTypes, filters: rule.filters, mode: rule.mode },
    });
    if (!(await RuleStore.create(rule, audit))) throw channelMissing();
    return toRuleView(rule);
  },

  async update(caller: Caller, ruleId: string, input: UpdateRuleBody): Promise<NotificationRule> {
    const current = await RuleStore.get(caller.teamId, ruleId);
    if (!current) throw new NotFoundError('Notification rule');
    const defined = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    const next: StoredRule = { ...current, ...defined, updatedAt: new Date().toISOString() };
    await assertWithinReach(caller, next);
    const changes = Object.fromEntries(
      Object.keys(defined).map((field) => [
        field,
        { from: current[field as keyof StoredRule], to: next[field as keyof StoredRule] },
      ]),
    );
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'update',
      entityType: 'notification_rule',
      entityId: ruleId,
      entityName: next.name,
      changes,
    });
    if (!(await RuleStore.replace(next, audit))) {
      if (!(await RuleStore.get(caller.teamId, ruleId))) throw new NotFoundError('Notification rule');
      throw channelMissing();
    }
    return toRuleView(next);
  },

  async delete(caller: Caller, ruleId: string): Promise<void> {
    const rule = await RuleStore.get(caller.teamId, ruleId);
    if (!rule) throw new NotFoundError('Notification rule');
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'delete',
      entityType: 'notification_rule',
      entityId: rule.id,
      entityName: rule.name,
      changes: { channelId: rule.channelId },
    });
    if (!(await RuleStore.delete(caller.teamId, ruleId, audit))) throw new NotFoundError('Notification rule');
  },
};
