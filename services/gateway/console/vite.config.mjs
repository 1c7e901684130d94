// The console's build: one bundle of scripts, styles and fonts under /console/ with content-hashed
// names, nothing inline (the gateway serves it with a strict Content-Security-Policy).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // Fonts and images stay files: a data: URL would need a looser policy.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
    reportCompressedSize: false,
  },
});
