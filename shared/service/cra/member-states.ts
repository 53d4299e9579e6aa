/**
 * The Member States of the European Union as ISO 3166-1 alpha-2 codes (Greece as `GR`, the ISO code, not the
 * EU's own `EL`). Plain constants: the settings schema, the console and the report drafts read them.
 */
export const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const;
export type EuMemberState = (typeof EU_MEMBER_STATES)[number];

/** The manufacturer's CRA details (team setting `cra`): who reports, where from, and where products are sold. */
export interface CraSettings {
  manufacturerName: string;
  contact: string;
  /** Where the manufacturer has its main establishment in the Union: it decides the CSIRT designated as coordinator. */
  mainEstablishment: EuMemberState | null;
  /** Where the products are made available; the early warning names them. */
  memberStates: EuMemberState[];
}
