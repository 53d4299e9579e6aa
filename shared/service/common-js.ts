/**
 * The exports of a CommonJS package loaded with `await import()`. Node's loader answers its named exports and
 * `default` (its `module.exports`); in an esbuild bundle with code splitting (the Lambda bundles, the test server's
 * bundle) the package's chunk answers `default` only, so a named export read from the namespace is undefined there.
 * `default` is the same object in both.
 */
export function commonJsExports<T extends object>(namespace: T): T {
  return (namespace as { default?: T }).default ?? namespace;
}
