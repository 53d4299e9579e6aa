/**
 * Injected first into every Lambda bundle (lib/bundling.ts `buildFunctionBundle`):
 * validates the configuration in the init phase, so a function deployed without a
 * required variable (PUBLIC_BASE_URL, TABLE_NAME, …) fails its cold start, visibly,
 * instead of serving documents that name a wrong host or failing later mid-request.
 * `npm start` makes the same check before it serves (bin/start.ts).
 */
import { config } from './config';

config();
