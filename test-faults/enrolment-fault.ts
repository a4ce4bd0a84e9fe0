import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { sleep } from '@svc/test-kit';
import type { FaultCluster } from './fault-cluster';

// Issue #29: enrolment is durable and resumable. A claim with many face pictures is verified;
// while detection enrols them (each picture served slowly), detection is killed with -9 and
// started again. Every picture must end enrolled, each announced exactly once, and the registry
// must show every picture's face status: no picture lost, none enrolled twice. The cluster kills
// detection's process (`killDetectionWhileEnrolling`); the embedded default's kill -9 row uses the
// same pieces (`startEnrolment`, `killMidway`, `announcementsSql`, `announcementProblems`).

export const PICTURES = 12;
/** Each picture is answered this late, so that the enrolment is still under way when the kill comes. */
const SERVE_DELAY_MS = 1200;

export interface EnrolmentFaultOutcome {
  problems: string[];
  killedWith: { indexed: number; pending: number };
  seconds: number;
}

/** How far an enrolment got: pictures enrolled, pictures still waiting, pictures known. */
export interface EnrolmentCounts {
  indexed: number;
  pending: number;
  total: number;
}

/** A verified claim whose face pictures are being enrolled, served slowly from loopback. */
export interface Enrolment {
  claimId: string;
  /** Its pictures' face statuses through the gateway, by image id (empty while it does not answer). */
  faces(): Promise<Map<string, string>>;
  /**
   * Waits until no picture is pending through the gateway (bounded: `ms`); what is wrong then
   * (nothing, when every picture ended enrolled).
   */
  settled(ms: number): Promise<{ problems: string[]; imageIds: string[] }>;
  close(): Promise<void>;
}

/**
 * Different crops and sizes of one portrait (Barack Obama's official portrait, public domain, from
 * the labelled face set): each its own picture with exactly one face.
 */
async function facePictures(rootDir: string): Promise<Buffer[]> {
  const portrait = path.join(
    rootDir,
    'packages/face-engine/test/fixtures/faces/wh-obama-official-portrait-2012.jpg',
  );
  return Promise.all(
    Array.from({ length: PICTURES }, (_, i) =>
      sharp(portrait)
        .extract({ left: 20 + i * 3, top: 10 + i * 2, width: 360 - i * 6, height: 440 - i * 6 })
        .resize(300 + i * 15)
        .jpeg({ quality: 80 + (i % 10) })
        .toBuffer(),
    ),
  );
}

async function startSlowPictureServer(pictures: Buffer[]): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const index = Number(/^\/face-(\d+)\.jpg$/.exec(req.url ?? '')?.[1] ?? -1);
    const body = pictures[index];
    setTimeout(() => {
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
    }, SERVE_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(
  gatewayUrl: string,
  key: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const response = await fetch(gatewayUrl + route, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
}

/**
 * Claims a name with PICTURES face pictures (served SERVE_DELAY_MS late from a loopback server of
 * the suite's) and verifies it: detection starts enrolling them. The deployment must allow private
 * fetches (SVC_ALLOW_PRIVATE_FETCH).
 */
export async function startEnrolment(
  rootDir: string,
  gatewayUrl: string,
  ownerKey: string,
): Promise<Enrolment> {
  const server = await startSlowPictureServer(await facePictures(rootDir));
  try {
    const created = await call(gatewayUrl, ownerKey, 'POST', '/v1/svc/claims', {
      name: `Enrolment Fault ${Date.now().toString(36)}`,
      entityType: 'INDIVIDUAL',
      referenceImages: Array.from({ length: PICTURES }, (_, i) => ({ url: `${server.base}/face-${i}.jpg` })),
    });
    if (created.status !== 201) throw new Error(`claim not created: ${created.status}`);
    const claimId = String(created.body.data?.['id']);
    const verified = await call(
      gatewayUrl,
      ownerKey,
      'POST',
      `/v1/svc/test-helpers/claims/${claimId}/verify`,
      {},
    );
    if (verified.status !== 200) throw new Error(`claim not verified: ${verified.status}`);
    const faces = async (): Promise<Map<string, string>> => {
      const claim = await call(gatewayUrl, ownerKey, 'GET', `/v1/svc/claims/${claimId}`).catch(
        () => undefined,
      );
      const images = (claim?.body.data?.['referenceImages'] ?? []) as {
        id: string;
        face: { status: string };
      }[];
      return new Map(images.map((image) => [image.id, image.face.status]));
    };
    return {
      claimId,
      faces,
      settled: async (ms) => {
        const doneBy = performance.now() + ms;
        const problems: string[] = [];
        let statuses = new Map<string, string>();
        for (;;) {
          statuses = await faces();
          const pending = [...statuses.values()].filter((status) => status === 'pending').length;
          if (statuses.size === PICTURES && pending === 0) break;
          if (performance.now() > doneBy) {
            problems.push(
              `pictures still pending after ${Math.round(ms / 1000)} s: ${pending} of ${statuses.size}`,
            );
            break;
          }
          await sleep(500);
        }
        const notEnrolled = [...statuses.values()].filter((status) => status !== 'enrolled');
        if (notEnrolled.length > 0) problems.push(`pictures not enrolled: ${notEnrolled.join(', ')}`);
        if (statuses.size !== PICTURES)
          problems.push(`the claim shows ${statuses.size} pictures of ${PICTURES}`);
        return { problems, imageIds: [...statuses.keys()] };
      },
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/**
 * Reads `counts` until some pictures are enrolled and others are not, then kills (bounded: `ms`).
 * Undefined (and no kill) when every picture was enrolled before a count caught it mid-way.
 */
export async function killMidway(
  counts: () => Promise<EnrolmentCounts>,
  kill: () => Promise<void> | void,
  ms = 60_000,
): Promise<EnrolmentCounts | undefined> {
  const killBy = performance.now() + ms;
  for (;;) {
    const now = await counts();
    if (now.total === PICTURES && now.indexed > 0 && now.pending > 0) {
      await kill();
      return now;
    }
    if (now.indexed === PICTURES) return undefined;
    if (performance.now() > killBy)
      throw new Error(`enrolment did not start within ${Math.round(ms / 1000)} s (${JSON.stringify(now)})`);
    await sleep(50);
  }
}

/**
 * What detection's outbox says of the claim's announcements (`detection.reference_image.enrolled`
 * rows counted per image): every picture of the claim announced, and each exactly once.
 */
export function announcementProblems(
  announced: readonly { image: string; n: number }[],
  imageIds: readonly string[],
): string[] {
  const problems: string[] = [];
  const twice = announced.filter((row) => row.n > 1);
  if (twice.length > 0)
    problems.push(
      `pictures enrolled more than once: ${twice.map((row) => `${row.image} ×${row.n}`).join(', ')}`,
    );
  const seen = new Set(announced.map((row) => row.image));
  const missing = imageIds.filter((id) => !seen.has(id));
  if (missing.length > 0) problems.push(`pictures never announced: ${missing.join(', ')}`);
  if (announced.length !== PICTURES) problems.push(`${announced.length} pictures announced of ${PICTURES}`);
  return problems;
}

/** The query, on detection's database, whose rows `announcementProblems` reads. */
export function announcementsSql(claimId: string): string {
  // A claim id is ours (prefix and base62), never the caller's text: checked before it goes in.
  if (!/^[A-Za-z0-9_]+$/.test(claimId)) throw new Error(`not a claim id: ${claimId}`);
  return `SELECT payload->'data'->>'imageId' AS image, count(*)::int AS n FROM outbox
    WHERE type = 'detection.reference_image.enrolled' AND payload->'data'->>'claimId' = '${claimId}'
    GROUP BY 1`;
}

/** Runs the fault; returns what went wrong (nothing, when enrolment is durable). */
export async function killDetectionWhileEnrolling(
  env: FaultCluster,
  rootDir: string,
  ownerKey: string,
): Promise<EnrolmentFaultOutcome> {
  const started = performance.now();
  const problems: string[] = [];
  const detectionDb = env.databaseOf('detection');
  const enrolment = await startEnrolment(rootDir, env.cluster.gatewayUrl, ownerKey);
  let killedWith = { indexed: 0, pending: 0 };
  try {
    const { claimId } = enrolment;
    // Kill as soon as some pictures are enrolled and others are not (bounded: 60 s).
    const states = async (): Promise<EnrolmentCounts> => {
      const { rows } = await env.admin(
        `SELECT state, count(*)::int AS n FROM reference_images WHERE claim_id = '${claimId}' GROUP BY state`,
        detectionDb,
      );
      const count = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
      return {
        indexed: count('indexed'),
        pending: count('pending'),
        total: rows.reduce((n, r) => n + Number(r.n), 0),
      };
    };
    const killed = await killMidway(states, () => env.kill('detection'));
    if (killed === undefined)
      problems.push('every picture was enrolled before detection could be killed mid-way');
    else killedWith = { indexed: killed.indexed, pending: killed.pending };
    await env.restart('detection');

    // Leases of the killed process run out (60 s), then another pass enrols the rest (bounded: 180 s).
    const settled = await enrolment.settled(180_000);
    problems.push(...settled.problems);

    const enrolled = await env.admin(
      `SELECT count(*)::int AS n FROM reference_images
        WHERE claim_id = '${claimId}' AND state = 'indexed' AND face_status = 'enrolled' AND face_descriptor IS NOT NULL`,
      detectionDb,
    );
    if (Number(enrolled.rows[0]?.n) !== PICTURES) {
      problems.push(`detection holds ${String(enrolled.rows[0]?.n)} enrolled pictures of ${PICTURES}`);
    }
    const announced = await env.admin(announcementsSql(claimId), detectionDb);
    problems.push(
      ...announcementProblems(
        announced.rows.map((r) => ({ image: String(r.image), n: Number(r.n) })),
        settled.imageIds,
      ),
    );
    return { problems, killedWith, seconds: Math.round((performance.now() - started) / 1000) };
  } finally {
    await enrolment.close();
  }
}
