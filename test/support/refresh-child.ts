/**
 * A corpus refresh in a process of its own, against the integration server's engines, for a test to
 * kill mid-import: `tsx test/support/refresh-child.ts <feed base URL> <ecosystem> <checkpoint records>`.
 */
import './integration-env';
import { runAsFunction } from '../../shared/service/aws-call-log';
import { refreshCorpus } from '../../shared/service/corpus/refresh';

const [baseUrl = '', ecosystem = '', checkpointRecords = '1000'] = process.argv.slice(2);
await runAsFunction('corpus-refresh', () =>
  refreshCorpus(
    { osv: { baseUrl, ecosystems: [ecosystem] }, kev: undefined, epss: undefined },
    { checkpointRecords: Number(checkpointRecords) },
  ),
);
