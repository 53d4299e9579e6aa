import { defineGroup } from '../route-definition';
import { openApiDocumentSchema } from '../../schemas/openapi';

/** The `openapi` group's routes (the function `functions/openapi/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const openApiRoutes = defineGroup('openapi', [
  {
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/api/openapi.json',
    scope: null,
    mutates: false,
    summary: "This API's OpenAPI 3.1 document",
    responses: { 200: { description: 'OpenAPI document', schema: openApiDocumentSchema } },
  },
]);
