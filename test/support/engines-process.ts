/**
 * The embedded engines alone in a child process on $DATA_DIR (no API, no corpus), for
 * tests that kill them: `node --import tsx/esm test/support/engines-process.ts`. They
 * publish engines.json once listening and stop cleanly on SIGTERM.
 */
import { startEmbeddedEngines } from '../../shared/local/engines';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const engines = await startEmbeddedEngines({ dataDir });
process.once('SIGTERM', () => {
  void engines.stop().then(() => process.exit(0));
});
