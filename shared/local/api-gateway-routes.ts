/**
 * The route table compiled for the local API Gateway emulator: which routes a request
 * path matches, in the order API Gateway chooses among them, and their path parameters.
 */
import { routes, type RouteDefinition } from '../service/http/routes';
import { decodeComponent } from './api-gateway-request';

export interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  paramNames: string[];
  literalSegments: number;
}

/** Non-empty segments of a path: a route with N segments can only match a path with N. */
function segmentCount(path: string): number {
  let count = 0;
  for (let index = 0; index < path.length; index += 1) {
    if (path.charCodeAt(index) !== 47 /* / */ && (index === 0 || path.charCodeAt(index - 1) === 47)) count += 1;
  }
  return count;
}

/** The compiled routes by segment count (each list keeps compileRoutes' order), so a request tests only routes of its length. */
function routesBySegmentCount(compiled: readonly CompiledRoute[]): Map<number, CompiledRoute[]> {
  const buckets = new Map<number, CompiledRoute[]>();
  for (const candidate of compiled) {
    const count = segmentCount(candidate.route.path);
    let bucket = buckets.get(count);
    if (!bucket) buckets.set(count, (bucket = []));
    bucket.push(candidate);
  }
  return buckets;
}

function compileRoutes(): CompiledRoute[] {
  return (
    (routes as readonly RouteDefinition[])
      .map((route) => {
        const paramNames: string[] = [];
        const segments = route.path.split('/').filter(Boolean);
        const source = segments
          .map((segment) => {
            const param = /^\{(\w+)\}$/.exec(segment);
            if (param?.[1]) {
              paramNames.push(param[1]);
              return '([^/]+)';
            }
            return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          })
          .join('/');
        return {
          route,
          pattern: new RegExp(`^/${source}/?$`),
          paramNames,
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
        };
      })
      // API Gateway prefers literal path parts over path parameters (/api/sboms/upload before /api/sboms/{id}).
      .sort((a, b) => b.literalSegments - a.literalSegments)
  );
}

export interface RouteTable {
  /** The routes whose path matches, literal path parts before path parameters. */
  pathMatches(pathname: string): CompiledRoute[];
}

export function compileRouteTable(): RouteTable {
  const compiled = routesBySegmentCount(compileRoutes());
  return {
    pathMatches: (pathname) =>
      (compiled.get(segmentCount(pathname)) ?? []).filter((candidate) => candidate.pattern.test(pathname)),
  };
}

/** The path parameters of a matched route, or null when it has none (as API Gateway passes them). */
export function pathParametersOf(match: CompiledRoute, pathname: string): Record<string, string> | null {
  const values = match.pattern.exec(pathname)?.slice(1) ?? [];
  // Each segment decodes: the whole path did, and no escape sequence spans a literal `/`.
  return match.paramNames.length
    ? Object.fromEntries(match.paramNames.map((name, index) => [name, decodeComponent(values[index] ?? '') ?? '']))
    : null;
}
