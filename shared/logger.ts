/** The one structured JSON logger of the process (Powertools). */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: 'vexdesk',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO', // validated in config; the logger must exist before config loads
});
