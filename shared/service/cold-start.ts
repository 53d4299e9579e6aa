/**
 * Injected first into every Lambda bundle (lib/bundling.ts `buildFunctionBundle`):
 * validates the configuration in the init phase, so a function deployed without a
 * required variable (PUBLIC_BASE_URL, TABLE_NAME, …) fails its cold start, visibly,
 * instead of serving documents that name a wrong host or failing later mid-request.
 * `npm start` makes the same check before it serves (bin/start.ts).
 *
 * It also makes the bundle's stack traces name the TypeScript sources, reading a
 * source map only when a stack needs it (shared/service/source-mapped-stacks.ts). V8 formats
 * a stack when it is first read, so the configuration error below is mapped too.
 */
import { config } from './config';
import { installSourceMappedStacks } from './source-mapped-stacks';

installSourceMappedStacks();
config();
