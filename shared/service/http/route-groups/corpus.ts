import { defineGroup } from '../route-definition';
import * as corpus from '../../schemas/corpus';

/**
 * The vulnerability corpus as a team sees it. Served by the `scans` function (functions/scans/handler.ts),
 * which already reads the corpus; the whole table is shared/service/http/routes.ts.
 */
export const corpusRoutes = defineGroup('scans', [
  {
    operationId: 'getCorpusStatus',
    method: 'GET',
    path: '/api/corpus/status',
    // The corpus is shared by every team and says nothing of any: any credential may ask how fresh it is.
    scope: 'authenticated',
    mutates: false,
    summary:
      'How fresh the vulnerability corpus is: per feed (OSV per ecosystem, CISA KEV, EPSS) the last successful refresh, the last attempt and its error',
    responses: { 200: { description: 'The feeds', schema: corpus.corpusStatusResponse } },
  },
]);
