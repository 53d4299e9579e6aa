/**
 * Official CWE names for CSAF `vulnerabilities[].cwe` (mandatory test 6.1.11 wants the exact
 * name of the id). The catalogue is the one @secvisogram/csaf-validator-lib ships (MIT, kept
 * current by BSI's Secvisogram project; content from MITRE's CWE list, whose terms of use allow
 * redistribution with its copyright notice, see docs/vex-mapping.md): the same list the CSAF
 * validators check the name against. Loaded on the first CSAF-relevant generation only (~80 KB).
 */
let catalogue: Promise<ReadonlyMap<string, string>> | undefined;

function load(): Promise<ReadonlyMap<string, string>> {
  return (catalogue ??= import('@secvisogram/csaf-validator-lib/cwe.js').then(
    ({ weaknesses }) => new Map(weaknesses.map((w) => [w.id, w.name])),
  ));
}

/** `CWE-<n>` → official name, for the ids the catalogue knows (others are left out). */
export async function cweNames(ids: Iterable<string>): Promise<Record<string, string>> {
  const names = await load();
  const out: Record<string, string> = {};
  for (const id of ids) {
    const key = id.trim().toUpperCase();
    const name = names.get(key);
    if (name !== undefined) out[key] = name;
  }
  return out;
}
