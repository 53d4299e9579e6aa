/**
 * dynalite parses every request's expressions with its generated PEG parsers, the costliest step of validating
 * a write (a notification pass writes thousands of items conditioned on `attribute_not_exists(pk)`). An expression
 * without values parses to the same tree every time, given the same attribute names: those trees are kept (a
 * bounded number) and each request gets its own copy, with the names it uses marked used as the parse would
 * have. Expressions with values, and those that do not parse, are parsed every time.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What dynalite's validation hands its parsers (validations/index.js `validateExpressions`). */
interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, unknown>;
  unusedAttrNames?: Record<string, boolean>;
}

interface PegParser {
  parse(input: string, options: { context: ParseContext }): unknown;
}

interface Parsed {
  tree: unknown;
  /** The attribute names the expression uses (the parse deletes them from `unusedAttrNames`). */
  usedNames: string[];
}

const MAX_KEPT = 1000;
const installed = new WeakSet<PegParser>();

/** A deep copy that keeps prototype-less objects as they are (dynalite's path maps are `Object.create(null)`). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value === null || typeof value !== 'object') return value;
  const copied = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
  for (const [key, inner] of Object.entries(value)) copied[key] = copy(inner);
  return copied;
}

function keepValuelessTrees(parser: PegParser): void {
  if (installed.has(parser)) return;
  installed.add(parser);
  const parse = parser.parse.bind(parser);
  const kept = new Map<string, Parsed>();
  parser.parse = (input, options) => {
    const { context } = options;
    if (context.attrVals !== undefined && Object.keys(context.attrVals).length > 0) return parse(input, options);
    const id = `${input}\u0000${JSON.stringify(context.attrNames ?? {})}`;
    let parsed = kept.get(id);
    if (!parsed) {
      // Parsed against a context of its own, so the names it uses are known whatever parsed before it.
      const names = Object.keys(context.attrNames ?? {});
      const unusedHere: Record<string, boolean> = Object.fromEntries(names.map((name) => [name, true]));
      // A parse that throws is not kept; one that answers an error (a string) is as lasting as a tree.
      const tree = parse(input, { context: { ...context, unusedAttrNames: unusedHere } });
      parsed = { tree: copy(tree), usedNames: names.filter((name) => !(name in unusedHere)) };
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(id, parsed);
    }
    const unused = context.unusedAttrNames ?? {};
    for (const name of parsed.usedNames) delete unused[name];
    return copy(parsed.tree);
  };
}

/** Keeps the trees of dynalite's condition, update and projection expressions without values. */
export function keepExpressionTrees(): void {
  for (const name of ['conditionParser', 'updateParser', 'projectionParser'])
    keepValuelessTrees(require(`dynalite/db/${name}`) as PegParser);
}
