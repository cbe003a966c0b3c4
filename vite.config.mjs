// The page of `sessionctx serve` (issue 18): Vite builds web/ into dist/web/, the server's default assets directory.
// JSX is compiled by Vite's own oxc transform with Preact's automatic runtime, so no framework plugin is needed.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: '/',
  publicDir: false,
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // The server's CSP is `default-src 'self'`: one module script and one stylesheet, no inline polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
