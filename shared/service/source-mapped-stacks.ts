/**
 * Stack traces of the Lambda bundles point at the TypeScript sources, as with
 * `--enable-source-maps`, but a chunk's source map is read only when a stack
 * through that chunk is first formatted. With the flag, Node reads and parses
 * the map of every chunk it loads (about 1 MB of JSON per function), which cost
 * 7-15 ms of every cold start for maps that are used only when something fails
 * (docs/architecture/cold-starts.md "Bundles").
 *
 * Installed by the cold-start module of every bundle (shared/service/cold-start.ts).
 * Code run from the TypeScript sources (tests, `npm start`) has no `.mjs` frames
 * and is left as it is.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

/** `file:///var/task/chunks/chunk-X.mjs:1:2345` as V8 writes a frame's location. */
const BUNDLE_LOCATION = /(file:\/\/\/[^\s()]+?\.mjs):(\d+):(\d+)/g;

/** Per bundle file: its parsed map, or null when it has none (read once per container). */
const maps = new Map<string, SourceMap | null>();

function sourceMapOf(fileUrl: string): SourceMap | null {
  let map = maps.get(fileUrl);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(fileUrl)}.map`, 'utf8')) as SourceMapPayload);
    } catch {
      map = null;
    }
    maps.set(fileUrl, map);
  }
  return map;
}

/** The project's top-level folders a bundle's sources come from (the design card's layout). */
const FROM_PROJECT_FOLDER = /(?:^|\/)((?:node_modules|shared|functions|lib|bin)\/.*)$/;

/**
 * A map's source path from the repository root (`shared/service/http/request.ts`, `node_modules/zod/…`):
 * the map holds it relative to where the bundle was built, which says nothing on Lambda.
 */
function repositoryPath(source: string): string {
  return FROM_PROJECT_FOLDER.exec(source)?.[1] ?? source;
}

/** Every bundle location in `text` replaced by its source location; locations without a mapping stay. */
export function sourceMappedLocations(text: string): string {
  return text.replace(BUNDLE_LOCATION, (location, fileUrl: string, line: string, column: string) => {
    const origin = sourceMapOf(fileUrl)?.findOrigin(Number(line), Number(column));
    if (!origin || !('fileName' in origin)) return location;
    return `${repositoryPath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}

/** What V8's CallSite offers beyond @types/node's declaration. */
interface V8CallSite {
  getFileName(): string | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
  toString(): string;
}

/** The mapping's source name at a 1-based position of a bundle file, if it records one. */
function nameAt(
  fileName: string | undefined,
  line: number | null | undefined,
  column: number | null | undefined,
): string | undefined {
  if (!fileName?.endsWith('.mjs') || !line || !column) return undefined;
  // findEntry answers {} without a mapping; a mapping's `name` is optional (and absent from @types/node).
  const entry = sourceMapOf(fileName)?.findEntry(line - 1, column - 1) as { name?: unknown } | undefined;
  return typeof entry?.name === 'string' && entry.name !== '' ? entry.name : undefined;
}

/**
 * The source name of the function a frame is in (minified in the bundle), found as Node's own
 * mapping does: a name recorded where the function starts, else the one recorded where the
 * caller's frame calls it (esbuild maps names at identifiers, such as the callee of a call).
 */
function originalFunctionName(site: V8CallSite, caller: V8CallSite | undefined): string | undefined {
  return (
    nameAt(site.getFileName(), site.getEnclosingLineNumber?.(), site.getEnclosingColumnNumber?.()) ??
    (caller ? nameAt(caller.getFileName(), caller.getLineNumber(), caller.getColumnNumber()) : undefined)
  );
}

/** One `at` line: V8's own text with the location and, where the map knows it, the function's name mapped. */
function sourceMappedFrame(site: V8CallSite, caller: V8CallSite | undefined): string {
  const text = sourceMappedLocations(site.toString());
  const name = originalFunctionName(site, caller);
  const named = name === undefined ? null : /^(async |new )?\S.* \((.*)\)$/.exec(text);
  return named ? `${named[1] ?? ''}${name} (${named[2]})` : text;
}

function errorHeader(error: Error): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
}

/** Formats stacks as V8 does (header, then one `at` line per frame), with source locations. */
export function installSourceMappedStacks(): void {
  Error.prepareStackTrace = (error, callSites) => {
    const sites = callSites as unknown as V8CallSite[];
    return (
      errorHeader(error) + sites.map((site, index) => `\n    at ${sourceMappedFrame(site, sites[index + 1])}`).join('')
    );
  };
}
