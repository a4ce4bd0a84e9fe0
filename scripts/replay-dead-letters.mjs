#!/usr/bin/env node
// Shows the dead letters of every service through the gateway's operator API, then replays them
// (unless DRY_RUN=1). Works against the embedded default and the cluster alike:
//   make replay-dead-letters [SERVICE=detection] [QUEUE=detection.identity-projection] [DRY_RUN=1]
// GATEWAY_URL defaults to http://127.0.0.1:$PORT; ADMIN_TOKEN defaults to the embedded default's
// token under DATA_DIR (.data/admin-token).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const gateway = process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
const tokenFile = path.join(process.env.DATA_DIR ?? '.data', 'admin-token');
const token =
  process.env.ADMIN_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
if (token === undefined || token === '') {
  console.error(`Set ADMIN_TOKEN (the gateway's operator token); ${tokenFile} does not exist.`);
  process.exit(2);
}
const service = process.env.SERVICE || undefined;
const queue = process.env.QUEUE || undefined;

async function call(method, urlPath, body) {
  const response = await fetch(`${gateway}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(60_000),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    console.error(`${method} ${urlPath}: ${response.status} ${JSON.stringify(answer.error ?? answer)}`);
    process.exit(1);
  }
  return answer;
}

function warnUnreachable(meta) {
  for (const { service: name, error } of meta?.unreachable ?? [])
    console.warn(`! ${name} did not answer: ${error}`);
}

const search = new URLSearchParams({ limit: '5' });
if (service !== undefined) search.set('service', service);
if (queue !== undefined) search.set('queue', queue);
const listed = await call('GET', `/admin/dead-letters?${search}`);
warnUnreachable(listed.meta);
const waiting = listed.data.filter((q) => q.depth > 0);
if (waiting.length === 0) {
  console.log('No dead letters.');
  process.exit(0);
}
for (const q of waiting) {
  console.log(`${q.service} ${q.queue}: ${q.depth} dead letter(s)`);
  for (const m of q.messages) {
    console.log(
      `  ${m.eventId ?? '(not an event)'} ${m.type ?? ''} after ${m.attempts} attempt(s): ${m.reason}`,
    );
  }
}
if (process.env.DRY_RUN === '1') process.exit(0);

const replayed = await call('POST', '/admin/dead-letters/replay', {
  ...(service === undefined ? {} : { service }),
  ...(queue === undefined ? {} : { queue }),
});
warnUnreachable(replayed.meta);
for (const q of replayed.data.filter((r) => r.replayed > 0)) {
  console.log(`replayed ${q.replayed} to ${q.service} ${q.queue}`);
}
