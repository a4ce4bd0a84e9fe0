import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

// Served by the gateway under /dashboard (same origin as the API): every asset URL starts there.
// No source maps (issue #30: the 4.7 MB map was public, and the gateway answers 404 to any *.map);
// every file is written brotli- and gzip-compressed beside itself, which the gateway sends per
// Accept-Encoding without compressing on each request.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react(), compression({ algorithms: ['brotliCompress', 'gzip'], exclude: [/\.map$/] })],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: {
    proxy: {
      '/v1': 'http://127.0.0.1:8080',
      '/admin': 'http://127.0.0.1:8080',
      '/dashboard/api': 'http://127.0.0.1:8080',
    },
  },
});
