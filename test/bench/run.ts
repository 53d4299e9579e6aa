/**
 * `npm run bench [-- api|bundles|scan|vex|report|all]`: prints the figures
 * each issue names. With no argument: the API latency and bundle benches.
 * Heavy runs live here, never in `npm test`.
 */
const sections: Record<string, () => Promise<string>> = {
  api: async () => (await import('./api')).benchApi(),
  bundles: async () => {
    const { runBundleBench, formatBundleBench } = await import('./bundles');
    return formatBundleBench(await runBundleBench());
  },
  scan: async () => (await import('./scan')).benchScan(),
  vex: async () => (await import('./vex')).benchVex(),
  report: async () => (await import('./report')).benchReport(),
};

const requested = process.argv.slice(2).filter((arg) => arg !== '--');
const names = requested.length === 0 ? ['api', 'bundles'] : requested.includes('all') ? Object.keys(sections) : requested;

for (const name of names) {
  const run = sections[name];
  if (!run) {
    console.error(`unknown bench "${name}"; choose from ${Object.keys(sections).join(', ')}, all`);
    process.exit(2);
  }
  console.log(await run());
  console.log('');
}
process.exit(0);

export {};
