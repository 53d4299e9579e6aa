/**
 * What a route of the route table is (shared/service/http/routes.ts), apart from the
 * routes themselves: each endpoint group's routes live in shared/service/http/route-groups/,
 * so a group's Lambda builds only its own routes' zod schemas at cold start.
 */
import type * as z from 'zod';
import type { RouteScope } from './scopes';

export const ENDPOINT_GROUPS = [
  'products',
  'releases',
  'sboms',
  'scans',
  'dispositions',
  'vex',
  'disclosures',
  'compliance',
  'audit',
  'events',
  'cra',
  'notifications',
  'settings',
  'auth',
  'signin',
  'openapi',
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  /** Other media types the same status answers with when a query parameter asks (their schema; null: text or a file). */
  alternatives?: Readonly<Record<string, z.ZodType | null>>;
}

export interface RouteDefinition<G extends EndpointGroup = EndpointGroup> {
  operationId: string;
  method: HttpMethod;
  /** API Gateway resource path with `{param}` placeholders. */
  path: string;
  group: G;
  /** Required scope; `authenticated`: any valid credential; `null` marks a public route (no authorizer). */
  scope: RouteScope;
  summary: string;
  /** Whether the handler writes (drives IAM grants and the audit-coverage test). */
  mutates: boolean;
  /**
   * A public route that acts for the team its validated body names (`teamId`): its data calls are
   * confined to that team as a caller's are (tenant role, tenant guard). Naming a team grants nothing.
   */
  teamFromBody?: true;
  request?: {
    params?: z.ZodObject;
    /** Parsed strictly (shared/service/http/request.ts): a query parameter the schema does not name is 422. */
    query?: z.ZodObject;
    body?: z.ZodType;
    /** A body taken as it is (not parsed as a JSON object against a schema): the media types it may have. */
    rawBody?: {
      contentTypes: readonly string[];
      description: string;
      /** The `application/json` schema when that body may also be a JSON object the route defines (the OpenAPI document shows it). */
      json?: z.ZodType;
    };
  };
  responses: Record<number, RouteResponse>;
}

/** A route as its group's file writes it: the group is named once, by `defineGroup`. */
export type GroupRoute = Omit<RouteDefinition, 'group'>;

/**
 * Declares an endpoint group's routes: each gets the group, and keeps its literal types (operation ids,
 * scopes, schemas) so the group's handler is checked against them.
 */
export function defineGroup<const G extends EndpointGroup, const R extends readonly GroupRoute[]>(
  group: G,
  groupRoutes: R,
): { readonly [K in keyof R]: R[K] & { readonly group: G } } {
  return groupRoutes.map((route) => ({ ...route, group })) as { readonly [K in keyof R]: R[K] & { readonly group: G } };
}

/** A route anyone may read: GET, no credentials (no authorizer runs), no writes. */
export type PublicRead = Omit<GroupRoute, 'method' | 'scope' | 'mutates'>;
type AsPublicRead<R> = R & { readonly method: 'GET'; readonly scope: null; readonly mutates: false };

/** Declares public reads (the disclosure routes and the files beside them) without repeating what makes them public. */
export function publicReads<const R extends readonly PublicRead[]>(
  reads: R,
): { readonly [K in keyof R]: AsPublicRead<R[K]> } {
  return reads.map((read) => ({ ...read, method: 'GET', scope: null, mutates: false })) as {
    readonly [K in keyof R]: AsPublicRead<R[K]>;
  };
}

export const noContent = { 204: { description: 'Done; no body' } };
/** CSAF distribution files are served as exactly `application/json` (csaf_downloader warns on anything else). */
export const csafJson = (description: string): RouteResponse => ({ description, contentType: 'application/json' });
