#!/usr/bin/env node
/** `vexdesk`, the client CLI, and the GitHub Action's entry (shared/client/cli.ts; bundled to dist/vexdesk.mjs). */
import { main } from '../shared/client/cli';

process.exitCode = await main(process.argv.slice(2), process.env);
