import { createGroupHandler } from '../../shared/service/http/group-handler';
import { openApiRoutes } from '../../shared/service/http/route-groups/openapi';
import { buildOpenApiDocument } from '../../shared/service/http/openapi-document';

// Built once per container: the document only changes with a deploy.
let documentJson: string | undefined;

export const handler = createGroupHandler(openApiRoutes, {
  getOpenApiDocument: () => {
    documentJson ??= JSON.stringify(buildOpenApiDocument());
    return Promise.resolve({
      status: 200,
      raw: documentJson,
      contentType: 'application/json; charset=utf-8',
      headers: { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
    });
  },
});
