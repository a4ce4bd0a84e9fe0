import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/config';
import { referenceImageEnrolled } from '@svc/contracts/detection';
import { createLogger } from '@svc/logger';
import { appendToOutbox } from '@svc/messaging';
import { createDatabase } from '@svc/storage';
import { waitFor } from '@svc/test-kit';
import { embeddedConfigSchema, startEmbedded, type RunningEmbedded } from '../../src';

// Issue #34: the embedded default keeps its in-process bus's state across a restart. Its bus
// holds nothing durable itself; what must survive lives in PGlite under DATA_DIR: each service's
// outbox (its own directory) and the bus's dead letters (the gateway's, `bus_dead_letters`). An
// event committed but not yet published when the process stopped is published after the restart,
// to a consumer started after its publisher; a dead letter is still listed after the next restart.

const ADMIN_TOKEN = 'adm_durability_0123456789abcdef';
const QUEUE = 'registry.face-enrolment';

describe('embedded default: a restart on the same data directory', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-restart-durability-'));
  let running: RunningEmbedded | undefined;

  const start = async (): Promise<RunningEmbedded> => {
    const config = loadConfig(embeddedConfigSchema, {
      PORT: '0',
      METRICS_PORT: '0',
      MAIL_CATCHER_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
    });
    running = await startEmbedded(config, createLogger('embedded', { level: 'silent' }));
    return running;
  };
  const stop = async (): Promise<void> => {
    const was = running;
    running = undefined;
    await was?.stop();
  };

  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const call = async (
    embedded: RunningEmbedded,
    key: string,
    method: string,
    route: string,
    body?: unknown,
  ) => {
    const response = await fetch(embedded.url + route, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown } };
  };
  const faceStatus = async (embedded: RunningEmbedded, claimId: string): Promise<string | undefined> => {
    const claim = await call(embedded, embedded.sandboxKey, 'GET', `/v1/svc/claims/${claimId}`);
    const images = (claim.body.data as { referenceImages?: { face: { status: string } }[] } | undefined)
      ?.referenceImages;
    return images?.[0]?.face.status;
  };
  const deadLetters = async (embedded: RunningEmbedded) => {
    const answer = await call(
      embedded,
      ADMIN_TOKEN,
      'GET',
      `/admin/dead-letters?service=registry&queue=${QUEUE}`,
    );
    expect(answer.status).toBe(200);
    const queues = answer.body.data as {
      queue: string;
      depth: number;
      messages: { eventId: string | null }[];
    }[];
    return queues.find((queue) => queue.queue === QUEUE);
  };

  it('when an event was left unpublished and another was dead-lettered, then after each restart the first is delivered once and the dead letter is still listed', async () => {
    // A claim with one picture; nobody verifies it, so detection never enrols it: its face stays pending.
    const url = 'http://127.0.0.1:9/durability.jpg';
    let embedded = await start();
    const created = await call(embedded, embedded.sandboxKey, 'POST', '/v1/svc/claims', {
      name: 'Durable Outbox',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url }],
    });
    expect(created.status).toBe(201);
    const claim = created.body.data as { id: string; referenceImages: { id: string }[] };
    const imageId = claim.referenceImages[0]?.id ?? '';
    expect(await faceStatus(embedded, claim.id)).toBe('pending');
    await stop();

    // What a crash between detection's commit and its relay's publish leaves: two committed,
    // unpublished rows in detection's outbox. The second is one registry cannot read (a status this
    // version does not know): it is retried, then dead-lettered.
    const occurredAt = new Date();
    const enrolled = referenceImageEnrolled.create(
      {
        claimId: claim.id,
        imageId,
        url,
        faceStatus: 'no_face',
        fingerprinted: true,
        enrolledAt: occurredAt.toISOString(),
      },
      { occurredAt },
    );
    const unreadable = {
      ...referenceImageEnrolled.create(
        {
          claimId: claim.id,
          imageId,
          url,
          faceStatus: 'failed',
          fingerprinted: false,
          enrolledAt: occurredAt.toISOString(),
        },
        { occurredAt },
      ),
      data: {
        claimId: claim.id,
        imageId,
        url,
        faceStatus: 'smudged',
        fingerprinted: false,
        enrolledAt: occurredAt.toISOString(),
      },
    };
    const detection = await createDatabase({ url: `pglite://${path.join(dataDir, 'detection')}` });
    await detection.transaction((tx) => appendToOutbox(tx, enrolled, unreadable));
    await detection.close();

    // Detection starts first and its relay publishes at once; the bus holds the events until
    // registry, started after it, has subscribed.
    embedded = await start();
    await waitFor(async () => ((await faceStatus(embedded, claim.id)) === 'no_face' ? true : undefined), {
      what: 'the unpublished event delivered after the restart',
      intervalMs: 200,
      timeoutMs: 60_000,
    });
    const kept = await waitFor(
      async () => {
        const queue = await deadLetters(embedded);
        return queue !== undefined && queue.depth > 0 ? queue : undefined;
      },
      { what: 'the unreadable event dead-lettered', timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(kept.messages.map((message) => message.eventId)).toEqual([unreadable.id]);
    await stop();

    // Dead letters are in the gateway's PGlite file: the next start still lists it, once.
    embedded = await start();
    const after = await deadLetters(embedded);
    expect(after?.depth).toBe(1);
    expect(after?.messages.map((message) => message.eventId)).toEqual([unreadable.id]);
    expect(await faceStatus(embedded, claim.id)).toBe('no_face');
    await stop();

    // Both rows were marked sent once handled (delivered, or kept as a dead letter): neither is
    // published a second time after the last restart.
    const reopened = await createDatabase({ url: `pglite://${path.join(dataDir, 'detection')}` });
    try {
      const { rows } = await reopened.query<{ event_id: string; published: boolean }>(
        'SELECT event_id, published_at IS NOT NULL AS published FROM outbox WHERE event_id = ANY($1) ORDER BY id',
        [[enrolled.id, unreadable.id]],
      );
      expect(rows).toEqual([
        { event_id: enrolled.id, published: true },
        { event_id: unreadable.id, published: true },
      ]);
    } finally {
      await reopened.close();
    }
  }, 400_000);
});
