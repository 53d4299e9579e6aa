import type { SkippedEntries, SkipReason } from './model';

const MAX_EXAMPLES = 5;
/** Examples are refs from the user's file: bounded so a hostile one cannot bloat the SBOM item. */
const MAX_EXAMPLE_LENGTH = 200;

/** Counts the entries of a document that do not become inventory components, by reason, with a few examples. */
export class SkipLog {
  private readonly byReason = new Map<SkipReason, SkippedEntries>();

  add(reason: SkipReason, example: string, count = 1): void {
    let entry = this.byReason.get(reason);
    if (!entry) {
      entry = { reason, count: 0, examples: [] };
      this.byReason.set(reason, entry);
    }
    entry.count += count;
    if (entry.examples.length < MAX_EXAMPLES) entry.examples.push(example.slice(0, MAX_EXAMPLE_LENGTH));
  }

  list(): SkippedEntries[] {
    return [...this.byReason.values()];
  }
}
