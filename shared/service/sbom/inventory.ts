import type { SbomComponent } from './model';
import { canonicalPurl } from './purl';
import type { SkipLog } from './skip-log';

/**
 * Collects components in document order. A later entry is merged into an earlier one (and
 * counted as a `duplicate`) only when it is the same package: the same canonical purl (syft
 * lists a package found at several paths), or the same bom-ref / SPDXID with the same identity.
 * Two different packages that share a bom-ref (a tool bug the schema forbids but real files
 * have) both stay: the second gets a suffixed ref. Dependency-Track de-duplicates by component
 * identity, not by bom-ref, too (DependencyTrack/dependency-track
 * src/main/java/org/dependencytrack/tasks/BomUploadProcessingTaskV2.java @7529e41b,
 * `distinctComponentsByIdentity`). A duplicate's CPEs and licences are merged into the first
 * occurrence so nothing the document says is lost.
 */
export class ComponentInventory {
  private readonly byRef = new Map<string, SbomComponent>();
  private readonly byPurl = new Map<string, SbomComponent>();
  private readonly ordered: SbomComponent[] = [];

  constructor(private readonly skipped: SkipLog) {}

  add(component: SbomComponent): void {
    const purlKey = component.purl === undefined ? undefined : canonicalPurl(component.purl);
    const samePurl = purlKey === undefined ? undefined : this.byPurl.get(purlKey);
    const sameRef = this.byRef.get(component.ref);
    const existing = samePurl ?? (sameRef && sameIdentity(sameRef, component) ? sameRef : undefined);
    if (existing) {
      mergeInto(existing.cpes, component.cpes);
      mergeInto(existing.licenses, component.licenses);
      this.skipped.add('duplicate', component.ref);
      return;
    }
    const stored = sameRef ? { ...component, ref: this.freeRef(component.ref) } : component;
    this.byRef.set(stored.ref, stored);
    if (purlKey !== undefined) this.byPurl.set(purlKey, stored);
    this.ordered.push(stored);
  }

  list(): SbomComponent[] {
    return this.ordered;
  }

  /** `ref#2`, `ref#3`…: deterministic, so a re-parse of the same file gives the same refs (finding ids hang on them). */
  private freeRef(ref: string): string {
    for (let n = 2; ; n++) {
      const candidate = `${ref}#${n}`;
      if (!this.byRef.has(candidate)) return candidate;
    }
  }
}

/** Same package: equal canonical purls, or (where either has none) equal name and version. */
function sameIdentity(a: SbomComponent, b: SbomComponent): boolean {
  const purlA = a.purl === undefined ? undefined : canonicalPurl(a.purl);
  const purlB = b.purl === undefined ? undefined : canonicalPurl(b.purl);
  if (purlA !== undefined && purlB !== undefined) return purlA === purlB;
  return a.name === b.name && a.version === b.version;
}

function mergeInto(target: string[], extra: string[]): void {
  for (const value of extra) if (!target.includes(value)) target.push(value);
}

export function uniqueStrings(values: Iterable<string | undefined>): string[] {
  const out: string[] = [];
  for (const value of values) if (value !== undefined && !out.includes(value)) out.push(value);
  return out;
}
