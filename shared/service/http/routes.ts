/**
 * The route table: the one list of endpoints. It drives the API Gateway
 * resources of the CDK stack, the local server's router, the scope check and
 * the OpenAPI document.
 *
 * Each endpoint group's routes are defined in shared/service/http/route-groups/<group>.ts
 * and only there; this module joins them. A group's Lambda imports its own
 * group's list, not this table, so it builds no other group's schemas at cold
 * start (docs/architecture/cold-starts.md "Bundles").
 */
import { errorBodySchema } from '../schemas/common';
import type { EndpointGroup, RouteDefinition } from './route-definition';
import { productRoutes } from './route-groups/products';
import { releaseRoutes } from './route-groups/releases';
import { sbomRoutes } from './route-groups/sboms';
import { scanRoutes } from './route-groups/scans';
import { portfolioRoutes } from './route-groups/portfolio';
import { corpusRoutes } from './route-groups/corpus';
import { dispositionRoutes } from './route-groups/dispositions';
import { vexRoutes } from './route-groups/vex';
import { disclosureRoutes } from './route-groups/disclosures';
import { complianceRoutes } from './route-groups/compliance';
import { auditRoutes } from './route-groups/audit';
import { eventRoutes } from './route-groups/events';
import { craRoutes } from './route-groups/cra';
import { notificationRoutes } from './route-groups/notifications';
import { settingsRoutes } from './route-groups/settings';
import { authRoutes } from './route-groups/auth';
import { signInRoutes } from './route-groups/signin';
import { openApiRoutes } from './route-groups/openapi';

export {
  ENDPOINT_GROUPS,
  type EndpointGroup,
  type HttpMethod,
  type RouteDefinition,
  type RouteResponse,
} from './route-definition';

export const routes = [
  ...productRoutes,
  ...releaseRoutes,
  ...sbomRoutes,
  ...scanRoutes,
  ...portfolioRoutes,
  ...corpusRoutes,
  ...dispositionRoutes,
  ...vexRoutes,
  ...disclosureRoutes,
  ...complianceRoutes,
  ...auditRoutes,
  ...eventRoutes,
  ...craRoutes,
  ...notificationRoutes,
  ...settingsRoutes,
  ...authRoutes,
  ...signInRoutes,
  ...openApiRoutes,
] as const satisfies readonly RouteDefinition[];

export type OperationId = (typeof routes)[number]['operationId'];

export const errorResponseSchema = errorBodySchema;

export function routesOfGroup(group: EndpointGroup): RouteDefinition[] {
  return routes.filter((route) => route.group === group);
}

/**
 * The methods the route table serves on a resource path, in a stable order: the `Allow` header of a
 * 405 (RFC 9110 §15.5.6) from the API Gateway stack and the local emulator alike.
 */
export function methodsOfPath(resourcePath: string): string[] {
  return [
    ...new Set(
      (routes as readonly RouteDefinition[])
        .filter((route) => route.path === resourcePath)
        .map((route) => route.method),
    ),
  ].sort();
}

/** The public disclosure routes: read by browsers on other origins, so their resources answer a CORS preflight. */
export function isPublicDisclosureRoute(route: RouteDefinition): boolean {
  return route.scope === null && route.group === 'disclosures';
}

/** True when OPTIONS on the resource path is a CORS preflight (204) rather than a 405, in the stack and the local server. */
export function hasCorsPreflight(resourcePath: string): boolean {
  return (routes as readonly RouteDefinition[]).some(
    (route) => route.path === resourcePath && isPublicDisclosureRoute(route),
  );
}

/** Every resource path of the route table, once each. */
export function routePaths(): string[] {
  return [...new Set((routes as readonly RouteDefinition[]).map((route) => route.path))];
}

/** Find the route for an API Gateway resource path and method. */
export function findRoute(method: string, resourcePath: string): RouteDefinition | undefined {
  return (routes as readonly RouteDefinition[]).find((route) => route.method === method && route.path === resourcePath);
}
