/**
 * CISA Known Exploited Vulnerabilities catalog (known_exploited_vulnerabilities.json,
 * schema in cisagov/kev-data). Entries that do not carry a CVE id and dateAdded
 * are skipped and counted rather than failing the whole import.
 */
import * as z from 'zod';
import { CVE_ID } from '../../matching/cve-id';

const kevEntrySchema = z.object({
  cveID: z.string().regex(CVE_ID),
  vendorProject: z.string().default(''),
  product: z.string().default(''),
  vulnerabilityName: z.string().default(''),
  dateAdded: z.string(),
  shortDescription: z.string().default(''),
  requiredAction: z.string().default(''),
  dueDate: z.string().nullable().default(null),
  knownRansomwareCampaignUse: z.string().default('Unknown'),
  notes: z.string().default(''),
  cwes: z.array(z.string()).default([]),
});
export type KevEntry = z.infer<typeof kevEntrySchema>;

const kevCatalogSchema = z.object({
  catalogVersion: z.string().default(''),
  dateReleased: z.string().default(''),
  vulnerabilities: z.array(z.unknown()),
});

export type KevCatalog = {
  catalogVersion: string;
  dateReleased: string;
  entries: Map<string, KevEntry>;
  skipped: number;
};

export class KevCatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KevCatalogError';
  }
}

/** Accepts the raw file (bytes or text) or an already-parsed JSON value. */
export function parseKevCatalog(input: unknown): KevCatalog {
  const json = typeof input === 'string' || input instanceof Uint8Array ? parseJson(input) : input;
  const catalog = kevCatalogSchema.safeParse(json);
  if (!catalog.success) throw new KevCatalogError('not a KEV catalog: expected an object with a vulnerabilities array');
  const entries = new Map<string, KevEntry>();
  let skipped = 0;
  for (const raw of catalog.data.vulnerabilities) {
    const entry = kevEntrySchema.safeParse(raw);
    if (entry.success) entries.set(entry.data.cveID, entry.data);
    else skipped++;
  }
  return { catalogVersion: catalog.data.catalogVersion, dateReleased: catalog.data.dateReleased, entries, skipped };
}

function parseJson(input: Uint8Array | string): unknown {
  try {
    return JSON.parse(typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input)) as unknown;
  } catch {
    throw new KevCatalogError('KEV catalog is not valid JSON');
  }
}
