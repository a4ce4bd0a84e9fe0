import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the gateway under /dashboard (same origin as the API): every asset URL starts there.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/v1': 'http://127.0.0.1:8080',
      '/admin': 'http://127.0.0.1:8080',
      '/dashboard/api': 'http://127.0.0.1:8080',
    },
  },
});
