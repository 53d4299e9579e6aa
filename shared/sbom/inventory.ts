import type { SbomComponent } from './model';
import { canonicalPurl } from './purl';

/**
 * Collects components in document order and drops duplicates: the same bom-ref /
 * SPDXID twice, or the same package (canonical purl) listed again, as syft does
 * for a package found at several paths. A duplicate's CPEs and licences are
 * merged into the first occurrence so nothing the document says is lost.
 */
export class ComponentInventory {
  private readonly byRef = new Map<string, SbomComponent>();
  private readonly byPurl = new Map<string, SbomComponent>();
  private readonly ordered: SbomComponent[] = [];

  add(component: SbomComponent): void {
    const purlKey = component.purl === undefined ? undefined : canonicalPurl(component.purl);
    const existing = this.byRef.get(component.ref) ?? (purlKey === undefined ? undefined : this.byPurl.get(purlKey));
    if (existing) {
      mergeInto(existing.cpes, component.cpes);
      mergeInto(existing.licenses, component.licenses);
      return;
    }
    this.byRef.set(component.ref, component);
    if (purlKey !== undefined) this.byPurl.set(purlKey, component);
    this.ordered.push(component);
  }

  list(): SbomComponent[] {
    return this.ordered;
  }
}

function mergeInto(target: string[], extra: string[]): void {
  for (const value of extra) if (!target.includes(value)) target.push(value);
}

export function uniqueStrings(values: Iterable<string | undefined>): string[] {
  const out: string[] = [];
  for (const value of values) if (value !== undefined && !out.includes(value)) out.push(value);
  return out;
}
