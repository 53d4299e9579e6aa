/**
 * The console's build (`npm run build:web`): a static SPA in web/dist (index.html + hashed assets)
 * that the local server serves at `/` and the stack uploads to the console bucket (docs/console.md).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  publicDir: false,
  // Preact's automatic JSX runtime (no React in the bundle).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The CSP is `script-src 'self'`: no inline polyfill script; every browser we support has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
