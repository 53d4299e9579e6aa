/** The team setting `carryOver` (docs/triage-continuity.md): how far a scan carries earlier releases' decisions. */
export const CARRY_OVER_SETTINGS = ['off', 'same_version', 'any_version'] as const;
export type CarryOverSetting = (typeof CARRY_OVER_SETTINGS)[number];
export const DEFAULT_CARRY_OVER: CarryOverSetting = 'same_version';
