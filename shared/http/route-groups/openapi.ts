import { anyJson, type RouteDefinition } from '../route-definition';

/** The `openapi` group's routes (the function `functions/openapi/handler.ts` serves them); the whole table is shared/http/routes.ts. */
export const openApiRoutes = [
  {
    operationId: 'getOpenApiDocument', method: 'GET', path: '/api/openapi.json', group: 'openapi', scope: null, mutates: false,
    summary: 'This API\'s OpenAPI 3.1 document', availability: 'implemented',
    responses: { 200: anyJson('OpenAPI document') },
  },
] as const satisfies readonly RouteDefinition<'openapi'>[];
