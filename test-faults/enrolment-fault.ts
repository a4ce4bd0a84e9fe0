import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { sleep } from '@svc/test-kit';
import type { FaultCluster } from './fault-cluster';

// Issue #29: enrolment is durable and resumable. A claim with many face pictures is verified;
// while detection enrols them (each picture served slowly), detection is killed with -9 and
// started again. Every picture must end enrolled, each announced exactly once, and the registry
// must show every picture's face status: no picture lost, none enrolled twice.

const PICTURES = 12;
/** Each picture is answered this late, so that the enrolment is still under way when the kill comes. */
const SERVE_DELAY_MS = 1200;

export interface EnrolmentFaultOutcome {
  problems: string[];
  killedWith: { indexed: number; pending: number };
  seconds: number;
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

/** Runs the fault; returns what went wrong (nothing, when enrolment is durable). */
export async function killDetectionWhileEnrolling(
  env: FaultCluster,
  rootDir: string,
  ownerKey: string,
): Promise<EnrolmentFaultOutcome> {
  const started = performance.now();
  const problems: string[] = [];
  const server = await startSlowPictureServer(await facePictures(rootDir));
  const detectionDb = env.databaseOf('detection');
  let killedWith = { indexed: 0, pending: 0 };
  try {
    const gateway = env.cluster.gatewayUrl;
    const created = await call(gateway, ownerKey, 'POST', '/v1/svc/claims', {
      name: `Enrolment Fault ${Date.now().toString(36)}`,
      entityType: 'INDIVIDUAL',
      referenceImages: Array.from({ length: PICTURES }, (_, i) => ({ url: `${server.base}/face-${i}.jpg` })),
    });
    if (created.status !== 201) throw new Error(`claim not created: ${created.status}`);
    const claimId = String(created.body.data?.['id']);
    const verified = await call(
      gateway,
      ownerKey,
      'POST',
      `/v1/svc/test-helpers/claims/${claimId}/verify`,
      {},
    );
    if (verified.status !== 200) throw new Error(`claim not verified: ${verified.status}`);

    // Kill as soon as some pictures are enrolled and others are not (bounded: 60 s).
    const states = async () => {
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
    const killBy = performance.now() + 60_000;
    for (;;) {
      const now = await states();
      if (now.total === PICTURES && now.indexed > 0 && now.pending > 0) {
        env.kill('detection');
        killedWith = { indexed: now.indexed, pending: now.pending };
        break;
      }
      if (now.indexed === PICTURES) {
        problems.push('every picture was enrolled before detection could be killed mid-way');
        break;
      }
      if (performance.now() > killBy)
        throw new Error(`enrolment did not start within 60 s (${JSON.stringify(now)})`);
      await sleep(50);
    }
    await env.restart('detection');

    // Leases of the killed process run out (60 s), then another pass enrols the rest (bounded: 180 s).
    const doneBy = performance.now() + 180_000;
    let faces: string[] = [];
    for (;;) {
      const claim = await call(gateway, ownerKey, 'GET', `/v1/svc/claims/${claimId}`).catch(() => undefined);
      const images = (claim?.body.data?.['referenceImages'] ?? []) as { face: { status: string } }[];
      faces = images.map((image) => image.face.status);
      if (faces.length === PICTURES && !faces.includes('pending')) break;
      if (performance.now() > doneBy) {
        problems.push(`pictures still pending after 180 s: ${faces.filter((f) => f === 'pending').length}`);
        break;
      }
      await sleep(500);
    }
    const notEnrolled = faces.filter((f) => f !== 'enrolled');
    if (notEnrolled.length > 0) problems.push(`pictures not enrolled: ${notEnrolled.join(', ')}`);

    const enrolled = await env.admin(
      `SELECT count(*)::int AS n FROM reference_images
        WHERE claim_id = '${claimId}' AND state = 'indexed' AND face_status = 'enrolled' AND face_descriptor IS NOT NULL`,
      detectionDb,
    );
    if (Number(enrolled.rows[0]?.n) !== PICTURES) {
      problems.push(`detection holds ${String(enrolled.rows[0]?.n)} enrolled pictures of ${PICTURES}`);
    }
    const announced = await env.admin(
      `SELECT payload->'data'->>'imageId' AS image, count(*)::int AS n FROM outbox
        WHERE type = 'detection.reference_image.enrolled' AND payload->'data'->>'claimId' = '${claimId}'
        GROUP BY 1`,
      detectionDb,
    );
    const twice = announced.rows.filter((r) => Number(r.n) > 1);
    if (twice.length > 0)
      problems.push(`pictures enrolled more than once: ${twice.map((r) => `${r.image} ×${r.n}`).join(', ')}`);
    if (announced.rows.length !== PICTURES)
      problems.push(`${announced.rows.length} pictures announced of ${PICTURES}`);
    return { problems, killedWith, seconds: Math.round((performance.now() - started) / 1000) };
  } finally {
    await server.close();
  }
}
