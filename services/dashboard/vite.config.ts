import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

// Served by the gateway under /dashboard (same origin as the API): every asset URL starts there.
// No source maps (issue #30: the 4.7 MB map was public, and the gateway answers 404 to any *.map);
// every file is written brotli- and gzip-compressed beside itself, which the gateway sends per
// Accept-Encoding without compressing on each request.
// The proof checks (issue #31) run in the browser from the SDK's own sources: `@svc/sdk` is built
// as CommonJS for Node, so its two browser-safe modules are bundled from src (tsconfig.json types
// them from the built declarations).
const sdkSources = fileURLToPath(new URL('../../packages/sdk/src/', import.meta.url));

export default defineConfig({
  base: '/dashboard/',
  resolve: {
    alias: [{ find: /^@svc\/sdk\/(credentials|transparency)$/, replacement: `${sdkSources}$1.ts` }],
  },
  plugins: [react(), compression({ algorithms: ['brotliCompress', 'gzip'], exclude: [/\.map$/] })],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: {
    proxy: {
      '/v1': 'http://127.0.0.1:8080',
      '/admin': 'http://127.0.0.1:8080',
      '/dashboard/api': 'http://127.0.0.1:8080',
      '/.well-known': 'http://127.0.0.1:8080',
    },
  },
});
