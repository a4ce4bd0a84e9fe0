import path from 'node:path';
import { requestJson, uniqueSuffix, type JsonReply } from '@svc/test-kit';

export const ROOT = path.resolve(__dirname, '..');

export type Reply = JsonReply;

/** One HTTP call with a bearer token, JSON in and out. */
export const call = requestJson;

/** A new platform on the standard plan (the operator API) and a key for it (shown once). */
export async function newPlatformKey(
  cluster: { gatewayUrl: string; adminToken: string },
  name: string,
): Promise<string> {
  const platform = await call(cluster.gatewayUrl, cluster.adminToken, 'POST', '/admin/platforms', {
    name: `${name} ${uniqueSuffix()}`,
    plan: 'standard',
  });
  const key = await call(
    cluster.gatewayUrl,
    cluster.adminToken,
    'POST',
    `/admin/platforms/${platform.body.data.id}/keys`,
    {},
  );
  return key.body.data.key;
}
