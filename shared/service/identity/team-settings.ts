/**
 * Team settings the spec leaves open: the SLA policy used by the compliance
 * report, the opt-in rule that a VEX approver must differ from the
 * submitter, and whether informational notices (RustSec `unsound`/`unmaintained`)
 * are hidden from vulnerability lists and the compliance report, and how far
 * decisions carry over to later releases (`carryOver`, docs/triage-continuity.md), and the
 * browser-session timeouts (shared/service/identity/session-timeouts.ts).
 * Stored on the team item; each change is audited. The answer
 * also shows the team's request quota, which only an operator changes
 * (admin CLI `team quota set`), since on AWS it lives in API Gateway.
 */
import { keys } from '../data/keys';
import { transactWrite, tx } from '../data/table-client';
import { auditPut, diffChanges } from '../audit/audit-log';
import { resolveSlaPolicy, type SlaPolicy } from '../compliance/sla';
import type { Actor } from './actor';
import { quotaOfTeam, type TeamQuota } from './team-quota';
import { DEFAULT_CARRY_OVER, type CarryOverSetting } from '../dispositions/carry-over-setting';
import { Teams } from './teams';
import { SessionTimeoutSettings, type SessionTimeouts } from './session-timeouts';
import { CsafProviderSettingsService, type CsafProviderSettingInput } from '../csaf-provider/provider-settings';
import type { TeamSettingsView } from '../schemas/compliance';
import type { CraSettings } from '../cra/member-states';

export interface TeamSettings {
  requireDistinctApprover: boolean;
  slaPolicy: SlaPolicy;
  /** Default false: informational findings are listed, marked `informational` (as osv-scanner reports them). */
  hideInformational: boolean;
  /** Which earlier decisions a release's scan takes over: none, the same package version (default), or any version (flagged for review). */
  carryOver: CarryOverSetting;
  /** The manufacturer's CRA details (docs/cra-reporting.md "Scope"); empty until set. */
  cra: CraSettings;
  /** Read-only here: the per-team throttle API Gateway applies (429 + Retry-After beyond it). */
  throttle: TeamQuota;
}

interface StoredSettings {
  requireDistinctApprover?: boolean;
  hideInformational?: boolean;
  carryOver?: CarryOverSetting;
  slaPolicy?: Partial<SlaPolicy>;
  cra?: Partial<CraSettings>;
}

function resolve(stored: StoredSettings): Omit<TeamSettings, 'throttle'> {
  return {
    requireDistinctApprover: stored.requireDistinctApprover === true,
    slaPolicy: resolveSlaPolicy(stored.slaPolicy),
    hideInformational: stored.hideInformational === true,
    carryOver: stored.carryOver ?? DEFAULT_CARRY_OVER,
    cra: {
      manufacturerName: stored.cra?.manufacturerName ?? '',
      contact: stored.cra?.contact ?? '',
      mainEstablishment: stored.cra?.mainEstablishment ?? null,
      memberStates: stored.cra?.memberStates ?? [],
    },
  };
}

function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function craAudit(cra: CraSettings): Record<string, unknown> {
  return {
    craManufacturerName: cra.manufacturerName,
    craContact: cra.contact,
    craMainEstablishment: cra.mainEstablishment,
    craMemberStates: cra.memberStates.join(','),
  };
}

export const TeamSettingsService = {
  /** The settings the services apply (scans, reports, approvals); without the CSAF provider, which only the settings API shows. */
  async get(teamId: string): Promise<TeamSettings> {
    const team = await Teams.get(teamId);
    return { ...resolve(team.settings), throttle: quotaOfTeam(team) };
  },

  async describe(teamId: string): Promise<TeamSettingsView> {
    const [settings, csaf, sessionTimeouts] = await Promise.all([
      TeamSettingsService.get(teamId),
      CsafProviderSettingsService.get(teamId),
      SessionTimeoutSettings.get(teamId),
    ]);
    return { ...settings, csafProvider: csaf.view, sessionTimeouts };
  },

  async update(
    teamId: string,
    actor: Actor,
    patch: {
      requireDistinctApprover?: boolean | undefined;
      hideInformational?: boolean | undefined;
      carryOver?: CarryOverSetting | undefined;
      slaPolicy?: Partial<SlaPolicy> | undefined;
      csafProvider?: CsafProviderSettingInput | null | undefined;
      sessionTimeouts?: Partial<SessionTimeouts> | undefined;
      cra?: { [K in keyof CraSettings]?: CraSettings[K] | undefined } | undefined;
    },
  ): Promise<TeamSettingsView> {
    const [team, csaf, sessionsBefore] = await Promise.all([
      Teams.get(teamId),
      CsafProviderSettingsService.get(teamId),
      SessionTimeoutSettings.get(teamId),
    ]);
    const csafChange = patch.csafProvider !== undefined ? csaf.change(patch.csafProvider) : null;
    const sessionsAfter = SessionTimeoutSettings.merge(sessionsBefore, patch.sessionTimeouts);
    const sessionTimeoutsChanged =
      sessionsAfter.idleMinutes !== sessionsBefore.idleMinutes ||
      sessionsAfter.absoluteMinutes !== sessionsBefore.absoluteMinutes;
    const current = team.settings as StoredSettings;
    const next: StoredSettings = {
      ...current,
      ...(patch.requireDistinctApprover !== undefined
        ? { requireDistinctApprover: patch.requireDistinctApprover }
        : {}),
      ...(patch.hideInformational !== undefined ? { hideInformational: patch.hideInformational } : {}),
      ...(patch.carryOver !== undefined ? { carryOver: patch.carryOver } : {}),
      ...(patch.slaPolicy ? { slaPolicy: { ...(current.slaPolicy ?? {}), ...patch.slaPolicy } } : {}),
      ...(patch.cra ? { cra: { ...(current.cra ?? {}), ...definedFields(patch.cra) } } : {}),
    };
    const before = resolve(current);
    const after = resolve(next);
    const session = (timeouts: SessionTimeouts) => ({
      sessionIdleMinutes: timeouts.idleMinutes,
      sessionAbsoluteMinutes: timeouts.absoluteMinutes,
    });
    const items = [
      tx.update(
        keys.team(teamId),
        'SET #settings = :settings',
        { '#settings': 'settings' },
        { ':settings': next },
        'attribute_exists(pk)',
      ),
      ...(sessionTimeoutsChanged ? [SessionTimeoutSettings.put(teamId, sessionsAfter)] : []),
      auditPut(teamId, actor, {
        action: 'update',
        entityType: 'team_settings',
        entityId: teamId,
        entityName: team.name,
        changes: diffChanges(
          {
            requireDistinctApprover: before.requireDistinctApprover,
            hideInformational: before.hideInformational,
            carryOver: before.carryOver,
            ...before.slaPolicy,
            ...session(sessionsBefore),
            ...craAudit(before.cra),
            ...(csafChange ? { csafProvider: csaf.view } : {}),
          },
          {
            requireDistinctApprover: after.requireDistinctApprover,
            hideInformational: after.hideInformational,
            carryOver: after.carryOver,
            ...after.slaPolicy,
            ...session(sessionsAfter),
            ...craAudit(after.cra),
            ...(csafChange ? { csafProvider: csafChange.view } : {}),
          },
        ),
      }),
    ];
    await (csafChange ? csafChange.commit(items) : transactWrite(items));
    return {
      ...after,
      throttle: quotaOfTeam(team),
      csafProvider: csafChange ? csafChange.view : csaf.view,
      sessionTimeouts: sessionsAfter,
    };
  },
};
