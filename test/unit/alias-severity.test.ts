import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import {
  aliasIdentifiers,
  applyAliasChanges,
  cveIdsOf,
  resolveSeverity,
  scoresOf,
  touchedIdentifiers,
  type AliasChange,
  type AliasItemContent,
  type RecordScores,
} from '../../shared/service/corpus/alias-severity';
import { packageKeysOf } from '../../shared/service/corpus/advisory-chunk';
import { boundPackages, PACKAGES_BUDGET_BYTES } from '../../shared/service/corpus/cve-packages';

const fixture = (id: string): Advisory =>
  parseOsvAdvisory(
    JSON.parse(readFileSync(fileURLToPath(new URL(`../fixtures/corpus/osv/${id}.json`, import.meta.url)), 'utf8')),
  );

/** GO-2021-0066 (no CVSS) lists CVE-2020-8564 and GHSA-8mjg-8c8g-6h85, which carries CVSS 3.1 (4.7, MEDIUM). */
const GO = fixture('GO-2021-0066');
const GHSA = fixture('GHSA-8mjg-8c8g-6h85');

function synthetic(id: string, aliases: string[], extra: Partial<Advisory> = {}): Advisory {
  return {
    ...GO,
    id,
    aliases,
    cveId: aliases.find((alias) => alias.startsWith('CVE-')) ?? id,
    cvssV2: null,
    cvssV3: null,
    cvssV4: null,
    databaseSeverity: null,
    ...extra,
  };
}
const V3_HIGH = { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', score: 7.5, severity: 'HIGH' as const };
const V4_LOW = {
  vector: 'CVSS:4.0/AV:N/AC:H/AT:P/PR:H/UI:A/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N',
  score: 1.0,
  severity: 'LOW' as const,
};

/**
 * The alias index as the import keeps it (shared/service/corpus/advisory-chunk.ts importChunk): per chunk,
 * the items of the touched identifiers are read, changed and written back, and each advisory item
 * remembers the identifiers it was indexed under; the advisory items (`records`) hold the records' own scores.
 */
class IndexModel {
  readonly items = new Map<string, AliasItemContent>();
  private readonly indexedUnder = new Map<string, string[]>();
  private readonly records = new Map<string, Advisory>();

  importChunk(records: Advisory[], withdrawn: string[] = []): void {
    const changes: AliasChange[] = [
      ...records.map((record) => ({
        advisoryId: record.id,
        before: this.indexedUnder.get(record.id) ?? [],
        after: {
          identifiers: aliasIdentifiers(record),
          scores: scoresOf(record),
          cveIds: cveIdsOf(record),
          packageKeys: packageKeysOf(record),
        },
      })),
      ...withdrawn.map((id) => ({ advisoryId: id, before: this.indexedUnder.get(id) ?? [], after: null })),
    ];
    const current = new Map(
      touchedIdentifiers(changes).flatMap((id) =>
        this.items.has(id) ? [[id, this.items.get(id) as AliasItemContent] as const] : [],
      ),
    );
    for (const [identifier, content] of applyAliasChanges(current, changes)) {
      if (Object.keys(content.entries).length > 0 || Object.keys(content.packages).length > 0)
        this.items.set(identifier, content);
      else this.items.delete(identifier);
    }
    records.forEach((record) =>
      this.indexedUnder.set(record.id, [...new Set([...aliasIdentifiers(record), ...cveIdsOf(record)])]),
    );
    records.forEach((record) => this.records.set(record.id, record));
    withdrawn.forEach((id) => this.indexedUnder.delete(id));
    withdrawn.forEach((id) => this.records.delete(id));
  }

  /**
   * What the scan does for a finding whose primary advisory is `advisory` (shared/service/corpus/alias-severity.ts
   * severityResolver): per identifier, the record of that id and the entries of its alias item.
   */
  severityOf(advisory: Advisory) {
    const aliased = new Map<string, RecordScores>();
    for (const identifier of [...aliasIdentifiers(advisory), advisory.cveId]) {
      const own = this.records.get(identifier);
      if (own && scoresOf(own)) aliased.set(identifier, scoresOf(own) as RecordScores);
      for (const [id, scores] of Object.entries(this.items.get(identifier)?.entries ?? {})) aliased.set(id, scores);
    }
    return resolveSeverity(advisory, advisory.cveId, aliased);
  }
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('severity from aliased records', () => {
  it("takes a Go record's severity and CVSS from the GHSA record it lists", () => {
    expect(GO.cvssV3).toBeNull();
    expect(GO.databaseSeverity).toBeNull();
    const model = new IndexModel();
    model.importChunk([GO]);
    expect(model.severityOf(GO)).toEqual({
      severity: 'NONE',
      source: null,
      sourceId: null,
      cvssV2: null,
      cvssV3: null,
      cvssV4: null,
    });
    model.importChunk([GHSA]);
    expect(model.severityOf(GO)).toEqual({
      severity: 'MEDIUM',
      source: 'cvss_v3',
      sourceId: 'GHSA-8mjg-8c8g-6h85',
      cvssV2: null,
      cvssV4: null,
      cvssV3: { vector: 'CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:N/A:N', score: 4.7, severity: 'MEDIUM' },
    });
    // A record with CVSS of its own keeps it.
    expect(model.severityOf(GHSA)).toMatchObject({ source: 'cvss_v3', sourceId: 'GHSA-8mjg-8c8g-6h85' });
  });

  it('finds the scored record from either side: listed by the advisory, listing the advisory, or sharing its CVE', () => {
    const goOnlyCve = synthetic('GO-2099-0001', ['CVE-2099-0001']);
    const ghsaNamingGo = synthetic('GHSA-aaaa-bbbb-cccc', ['GO-2099-0002'], { cvssV3: V3_HIGH });
    const goListedByGhsa = synthetic('GO-2099-0002', []);
    const ghsaSharingCve = synthetic('GHSA-dddd-eeee-ffff', ['CVE-2099-0001'], { cvssV3: V3_HIGH });
    const model = new IndexModel();
    model.importChunk([goOnlyCve, ghsaNamingGo, goListedByGhsa, ghsaSharingCve]);
    expect(model.severityOf(goListedByGhsa)).toMatchObject({ severity: 'HIGH', sourceId: 'GHSA-aaaa-bbbb-cccc' });
    expect(model.severityOf(goOnlyCve)).toMatchObject({ severity: 'HIGH', sourceId: 'GHSA-dddd-eeee-ffff' });
  });

  it('gives the same index and the same severity whatever order and chunks the records come in', () => {
    const nvd = synthetic('CVE-2020-8564', [], {
      cvssV3: { vector: 'CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:N/A:N', score: 4.7, severity: 'MEDIUM' },
      cvssV2: { vector: 'AV:L/AC:L/Au:N/C:P/I:N/A:N', score: 2.1, severity: 'LOW' },
    });
    const rated = synthetic('PYSEC-2099-1', ['GO-2021-0066'], { databaseSeverity: 'HIGH' });
    const records = [GO, GHSA, nvd, rated];
    const results = permutations(records).flatMap((order) =>
      [1, 2, 4].map((chunk) => {
        const model = new IndexModel();
        for (let offset = 0; offset < order.length; offset += chunk)
          model.importChunk(order.slice(offset, offset + chunk));
        return { items: [...model.items].sort(([a], [b]) => a.localeCompare(b)), severity: model.severityOf(GO) };
      }),
    );
    expect(results).toHaveLength(24 * 3);
    for (const result of results) expect(result).toEqual(results[0]);
    // Two v3 scores of 4.7 tie: the smaller id decides, never the import order.
    expect(results[0]?.severity).toMatchObject({
      source: 'cvss_v3',
      sourceId: 'CVE-2020-8564',
      severity: 'MEDIUM',
      cvssV2: { score: 2.1 },
    });
  });

  it('follows a refresh: a GHSA added later upgrades the Go advisory, a better one replaces it, a withdrawal or a dropped alias undoes it', () => {
    const model = new IndexModel();
    model.importChunk([GO]);
    expect(model.severityOf(GO).severity).toBe('NONE');
    model.importChunk([GHSA]);
    expect(model.severityOf(GO)).toMatchObject({ severity: 'MEDIUM', sourceId: GHSA.id });
    // The GHSA record is revised with a CVSS 4.0 vector: v4 outranks v3 wherever it comes from.
    const revised = { ...GHSA, modified: '2099-01-01T00:00:00Z', cvssV4: V4_LOW };
    model.importChunk([revised]);
    expect(model.severityOf(GO)).toMatchObject({ severity: 'LOW', source: 'cvss_v4', sourceId: GHSA.id });
    // A revision that no longer names the CVE leaves its old item.
    model.importChunk([{ ...revised, aliases: [], cveId: revised.id }]);
    expect(model.items.get('CVE-2020-8564')).toEqual({ entries: {}, packages: { [GO.id]: packageKeysOf(GO) } });
    // GO-2021-0066 still lists GHSA-8mjg-8c8g-6h85 itself, so it still reads that record's own entry.
    expect(model.severityOf(GO)).toMatchObject({ sourceId: GHSA.id });
    model.importChunk([], [GHSA.id, GO.id]);
    expect(model.items.size).toBe(0);
    expect(model.severityOf(GO)).toMatchObject({ severity: 'NONE', source: null, sourceId: null });
  });

  it("files a record's entry under its aliases only: its own scores are in its advisory item", () => {
    const model = new IndexModel();
    model.importChunk([GHSA, GO]);
    // GO-2021-0066 has no scores: among no item's entries. GHSA-8mjg-8c8g-6h85 is in its CVE's item, not in its own id's.
    expect([...model.items.keys()]).toEqual(['CVE-2020-8564']);
    expect(Object.keys(model.items.get('CVE-2020-8564')?.entries ?? {})).toEqual([GHSA.id]);
    // GO-2021-0066 lists the GHSA id: it reads the GHSA record itself.
    model.importChunk([{ ...GHSA, aliases: [], cveId: GHSA.id }]);
    expect(model.items.get('CVE-2020-8564')?.entries).toEqual({});
    expect(model.severityOf(GO)).toMatchObject({ severity: 'MEDIUM', sourceId: GHSA.id });
  });

  it("drops a record's entry from its own id's item, as items written before held it, when it changes or is withdrawn", () => {
    const scores = scoresOf(GHSA) as RecordScores;
    const other = { ...scores, cveId: 'CVE-2099-0009' };
    const oldLayout = new Map<string, AliasItemContent>([
      [GHSA.id, { entries: { [GHSA.id]: scores, 'PYSEC-2099-9': other }, packages: {} }],
    ]);
    const revised: AliasChange = {
      advisoryId: GHSA.id,
      before: aliasIdentifiers(GHSA),
      after: { identifiers: aliasIdentifiers(GHSA), scores, cveIds: cveIdsOf(GHSA), packageKeys: packageKeysOf(GHSA) },
    };
    expect(applyAliasChanges(oldLayout, [revised]).get(GHSA.id)?.entries).toEqual({ 'PYSEC-2099-9': other });
    const withdrawn: AliasChange = { advisoryId: GHSA.id, before: aliasIdentifiers(GHSA), after: null };
    const ownItem = new Map([[GHSA.id, { entries: { [GHSA.id]: scores }, packages: {} }]]);
    expect(applyAliasChanges(ownItem, [withdrawn]).get(GHSA.id)).toEqual({ entries: {}, packages: {} });
  });

  it('never borrows from a record of another CVE, and falls back to database ratings after CVSS', () => {
    const finding = synthetic('PYSEC-2021-88', ['CVE-2021-0001', 'GHSA-5pr9-v234-jw36']);
    const otherCve = synthetic('GHSA-5pr9-v234-jw36', ['CVE-2021-0002'], { cvssV3: V3_HIGH });
    expect(resolveSeverity(finding, finding.cveId, [[otherCve.id, scoresOf(otherCve) as RecordScores]])).toMatchObject({
      severity: 'NONE',
      sourceId: null,
    });

    const ratedOwn = { ...finding, databaseSeverity: 'LOW' as const };
    const scoredAlias = synthetic('GHSA-zzzz-zzzz-zzzz', ['CVE-2021-0001'], {
      cvssV3: V3_HIGH,
      databaseSeverity: 'MEDIUM',
    });
    const ratedAlias = synthetic('GHSA-yyyy-yyyy-yyyy', ['CVE-2021-0001'], { databaseSeverity: 'CRITICAL' });
    // CVSS from an alias outranks the advisory's own rating.
    expect(
      resolveSeverity(ratedOwn, finding.cveId, [[scoredAlias.id, scoresOf(scoredAlias) as RecordScores]]),
    ).toMatchObject({ severity: 'HIGH', source: 'cvss_v3', sourceId: scoredAlias.id });
    // Without any CVSS, the advisory's own rating comes before an alias's.
    expect(
      resolveSeverity(ratedOwn, finding.cveId, [[ratedAlias.id, scoresOf(ratedAlias) as RecordScores]]),
    ).toMatchObject({ severity: 'LOW', source: 'advisory', sourceId: finding.id });
    expect(
      resolveSeverity(finding, finding.cveId, [[ratedAlias.id, scoresOf(ratedAlias) as RecordScores]]),
    ).toMatchObject({ severity: 'CRITICAL', source: 'advisory', sourceId: ratedAlias.id, cvssV3: null });
  });
});

describe('the package keys of the records naming a CVE', () => {
  it('files every record naming a CVE under it with its package keys, scored or not, and lends no unscored scores', () => {
    // Named in its aliases (GO-2021-0066, unscored), as its upstream CVE only (unscored), or by its own id.
    const upstreamOnly = synthetic('UBUNTU-CVE-2020-8564', [], { cveId: 'CVE-2020-8564' });
    const nvd = synthetic('CVE-2020-8564', []);
    const model = new IndexModel();
    model.importChunk([GO, upstreamOnly, nvd]);
    expect([...model.items.keys()]).toEqual(['CVE-2020-8564']);
    expect(model.items.get('CVE-2020-8564')).toEqual({
      entries: {},
      packages: { [GO.id]: packageKeysOf(GO), [upstreamOnly.id]: packageKeysOf(upstreamOnly) },
    });
    expect(model.severityOf(GO)).toMatchObject({ severity: 'NONE', sourceId: null });
    model.importChunk([GHSA]);
    expect(Object.keys(model.items.get('CVE-2020-8564')?.entries ?? {})).toEqual([GHSA.id]);
    expect(Object.keys(model.items.get('CVE-2020-8564')?.packages ?? {}).sort()).toEqual(
      [GHSA.id, GO.id, upstreamOnly.id].sort(),
    );
    expect(model.severityOf(GO)).toMatchObject({ severity: 'MEDIUM', sourceId: GHSA.id });
  });

  it("drops a record's package keys from a CVE it no longer names, its upstream CVE included, and on withdrawal", () => {
    const upstreamOnly = synthetic('UBUNTU-CVE-2099-0042', [], { cveId: 'CVE-2099-0042' });
    const model = new IndexModel();
    model.importChunk([upstreamOnly, GO]);
    expect([...model.items.keys()].sort()).toEqual(['CVE-2020-8564', 'CVE-2099-0042']);
    model.importChunk([{ ...upstreamOnly, cveId: upstreamOnly.id, modified: '2099-01-01T00:00:00Z' }]);
    expect(model.items.has('CVE-2099-0042')).toBe(false);
    model.importChunk([], [GO.id]);
    expect(model.items.size).toBe(0);
  });

  it("keeps an item's package keys within its budget: the records with the most keys are read from their advisory items", () => {
    const many = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, index) => `npm\u0000${prefix}-package-with-a-long-name-${index}`);
    const packages = { 'GHSA-big': many(400, 'big'), 'GHSA-mid': many(100, 'mid'), 'GO-small': many(2, 'small') };
    const bounded = boundPackages(packages);
    expect(bounded).toEqual({ 'GHSA-big': null, 'GHSA-mid': packages['GHSA-mid'], 'GO-small': packages['GO-small'] });
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(PACKAGES_BUDGET_BYTES);
    const small = { 'GO-small': many(2, 'small') };
    expect(boundPackages(small)).toBe(small);
  });
});
