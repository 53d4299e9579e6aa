/** The one structured JSON logger of the process (Powertools). */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: 'vexdesk',
  // Validated in config; the logger must exist before config loads. A level given here overrides Powertools' own
  // POWERTOOLS_LOG_LEVEL, so that one is read here too (`npm start` quiet mode and the benches set it).
  logLevel:
    ((process.env.LOG_LEVEL || process.env.POWERTOOLS_LOG_LEVEL) as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ??
    'INFO',
});
