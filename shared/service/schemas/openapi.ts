import * as z from 'zod';

/** `GET /api/openapi.json`: an OpenAPI 3.1 document (this one); the fields a reader starts from, the rest as the standard defines it. */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document' });
