/**
 * The size of an archive import's resumable units (docs/corpus-at-scale.md "Units"), apart from the import code
 * so that the corpus-refresh handler reads its budget without loading that code at cold start.
 */

/** Entries between two checkpoints of an archive import: two chunks, a few seconds of work. */
export const CHECKPOINT_RECORDS = 10_000;

/**
 * How long one corpus-refresh invocation imports: an archive import stops at its first checkpoint after this,
 * well inside the function's 300 s timeout with the re-evaluation after it.
 */
export const IMPORT_BUDGET_MS = 150_000;
