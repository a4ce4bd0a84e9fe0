import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import {
  createSvcClient,
  isApiError,
  unwrap,
  type ApiError,
  type CallResult,
  type DataOf,
  type SvcClient,
} from '@svc/sdk';
import { childCoverageEnv, requestJson, uniqueSuffix, type JsonReply } from '@svc/test-kit';

export const ROOT = path.resolve(__dirname, '..');

export type Reply = JsonReply;

/**
 * One raw HTTP call with a bearer token, JSON in and out: for what a typed client cannot send
 * (malformed bodies, wrong types, hostile input). Story tests use the SDK (`sdkFor`).
 */
export const call = requestJson;

/**
 * The typed client of `@svc/sdk` on the gateway with `key` (an API key or the operator token).
 * Retries of 429/503 are turned off: a test asserts the answer it got, and a retry would hide it.
 */
export function sdkFor(gatewayUrl: string, key: string | undefined): SvcClient {
  return createSvcClient({
    baseUrl: gatewayUrl,
    ...(key === undefined ? {} : { apiKey: key }),
    maxRetries: 0,
  });
}

/**
 * The data of a call that must answer `status`. The status is the test's check (an integrator
 * just `unwrap`s); on another answer the failure shows the status and the error body.
 */
export async function expectStatus<R extends CallResult>(
  status: number,
  call: R | Promise<R>,
): Promise<DataOf<R>> {
  const result = await call;
  expect({ status: result.response.status, error: result.error }).toEqual({ status, error: undefined });
  return unwrap(result);
}

/**
 * The typed error a call must fail with (what `unwrap` throws), for its `status`, `code`,
 * `details` and `fields`; a call that succeeded fails the test.
 */
export async function refusal(call: CallResult | Promise<CallResult>): Promise<ApiError> {
  const result = await call;
  const err = await unwrap(result).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isApiError(err)) {
    throw new Error(
      `expected an error answer, got ${result.response.status} ${JSON.stringify(result.data ?? result.error)}`,
    );
  }
  return err;
}

/** A new platform (the operator API) on `plan` and a key for it (shown once), with the platform's id. */
export async function newPlatform(
  cluster: { gatewayUrl: string; adminToken: string },
  name: string,
  plan: 'sandbox' | 'basic' | 'standard' = 'standard',
): Promise<{ platformId: string; key: string; keyId: string }> {
  const operator = sdkFor(cluster.gatewayUrl, cluster.adminToken);
  const platform = await unwrap(
    operator.POST('/admin/platforms', { body: { name: `${name} ${uniqueSuffix()}`, plan } }),
  );
  const issued = await unwrap(
    operator.POST('/admin/platforms/{id}/keys', { params: { path: { id: platform.data.id } }, body: {} }),
  );
  return { platformId: platform.data.id, key: issued.data.key, keyId: issued.data.id };
}

/** A new platform on the standard plan (the operator API) and a key for it (shown once). */
export async function newPlatformKey(
  cluster: { gatewayUrl: string; adminToken: string },
  name: string,
): Promise<string> {
  return (await newPlatform(cluster, name)).key;
}

/** `make dev` as a child process: every service in one process on PGlite files under `dataDir`. */
export interface Embedded {
  child: ChildProcess;
  output: () => string;
  key: string;
  adminToken: string;
  url: string;
}

/**
 * Starts the embedded default and waits for the sandbox key and admin token it prints: about 12 s
 * on a quiet machine, over a minute at a load average near 20 (seven PGlite databases).
 */
export async function startEmbedded(dataDir: string, port: number, timeoutMs = 180_000): Promise<Embedded> {
  const child = spawn(process.execPath, [path.join(ROOT, 'services/embedded/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...childCoverageEnv(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = performance.now() + timeoutMs;
  while (!/Admin token:\s+\S+/.test(output)) {
    if (child.exitCode !== null) throw new Error(`embedded exited: ${output}`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded not ready: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const key = /Sandbox key:\s+(\S+)/.exec(output)?.[1] ?? '';
  const adminToken = /Admin token:\s+(\S+)/.exec(output)?.[1] ?? '';
  return { child, output: () => output, key, adminToken, url: `http://127.0.0.1:${port}` };
}

/** Stops the embedded default (SIGTERM) and resolves with its exit code. */
export async function stopEmbedded(embedded: Embedded): Promise<number | null> {
  if (embedded.child.exitCode !== null) return embedded.child.exitCode;
  const exited = new Promise<number | null>((resolve) =>
    embedded.child.once('exit', (code) => resolve(code)),
  );
  embedded.child.kill('SIGTERM');
  return exited;
}
