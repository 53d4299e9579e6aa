/** A bench run on its own (`tsx test/bench/<name>.ts`): print its report and exit 0, or the error and exit 1. */
export function printReport(report: Promise<string>): void {
  report.then(
    (text) => {
      console.log(text);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
