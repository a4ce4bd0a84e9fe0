import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
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

/**
 * The API reference the gateway serves at /docs (issue #32): its page and script from
 * api-reference/, and Redoc's standalone bundle from the redoc package, written to dist/docs/
 * (and compressed with the rest). Offline: the page loads nothing but these files and the
 * OpenAPI document.
 */
function apiReference(): Plugin {
  const redocBundles = path.join(
    path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')),
    'bundles',
  );
  const own = fileURLToPath(new URL('./api-reference/', import.meta.url));
  const files: Record<string, string> = {
    'docs/index.html': path.join(own, 'index.html'),
    'docs/reference.js': path.join(own, 'reference.js'),
    'docs/redoc.standalone.js': path.join(redocBundles, 'redoc.standalone.js'),
    'docs/redoc.standalone.js.LICENSE.txt': path.join(redocBundles, 'redoc.standalone.js.LICENSE.txt'),
  };
  return {
    name: 'api-reference',
    apply: 'build',
    generateBundle() {
      for (const [fileName, from] of Object.entries(files)) {
        const source = fileName.endsWith('redoc.standalone.js')
          ? offline(readFileSync(from, 'utf8'))
          : readFileSync(from);
        this.emitFile({ type: 'asset', fileName, source });
      }
    },
  };
}

/**
 * The bundle's one resource of another host: the menu footer's Redocly logo, an <img> of
 * cdn.redoc.ly (refused by the page's CSP, and a request leaving the deployment). It becomes an
 * empty data: image, which fails to decode, and Redoc's own onError then drops the image (the
 * link's text stays). A Redoc without that URL, or with it more than once, fails the build.
 */
function offline(bundle: string): string {
  const logo = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
  const parts = bundle.split(logo);
  if (parts.length !== 2)
    throw new Error(`redoc.standalone.js names ${logo} ${parts.length - 1} times, not once`);
  return parts.join('"data:,"');
}

/**
 * The webhook event catalogue (issue #32): each event the OpenAPI document declares under
 * `webhooks`, with its summary, description and example, as the module `virtual:webhook-events`.
 * Read from packages/sdk/openapi.json at build time: the page carries 13 events, not the 1.7 MB
 * document, and needs no call.
 */
function webhookEvents(): Plugin {
  const id = 'virtual:webhook-events';
  const document = fileURLToPath(new URL('../../packages/sdk/openapi.json', import.meta.url));
  return {
    name: 'webhook-events',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load(resolved) {
      if (resolved !== `\0${id}`) return undefined;
      this.addWatchFile(document);
      type Webhook = {
        post: {
          summary: string;
          description?: string;
          requestBody: { content: { 'application/json': { example?: unknown } } };
        };
      };
      const { webhooks } = JSON.parse(readFileSync(document, 'utf8')) as {
        webhooks: Record<string, Webhook>;
      };
      const events = Object.entries(webhooks).map(([type, { post }]) => ({
        type,
        summary: post.summary,
        description: post.description ?? '',
        example: post.requestBody.content['application/json'].example ?? null,
      }));
      return `export default ${JSON.stringify(events)};`;
    },
  };
}

export default defineConfig({
  base: '/dashboard/',
  resolve: {
    alias: [{ find: /^@svc\/sdk\/(credentials|transparency)$/, replacement: `${sdkSources}$1.ts` }],
  },
  plugins: [
    react(),
    apiReference(),
    webhookEvents(),
    compression({ algorithms: ['brotliCompress', 'gzip'], exclude: [/\.map$/] }),
  ],
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
