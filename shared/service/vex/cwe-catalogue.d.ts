/** The CWE catalogue module of @secvisogram/csaf-validator-lib (plain ESM JavaScript without declarations). */
declare module '@secvisogram/csaf-validator-lib/cwe.js' {
  export const weaknesses: ReadonlyArray<{ readonly id: string; readonly name: string }>;
}
