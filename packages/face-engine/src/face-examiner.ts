import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Piscina from 'piscina';
import { NotAnImageError } from '@svc/image-fingerprint';
import {
  DEFAULT_MIN_SCORE,
  type ExaminationOutcome,
  type FaceDetectorName,
  type FaceExaminationSettings,
} from './face-examination';
import { FaceExaminationTimeout, FaceExaminerBusy } from './face-examiner.errors';
import type { FaceTask } from './face-worker';
import type { FaceExamination, FaceExaminer } from './types';

/** How a face examiner is sized and how it looks for faces. */
export interface FaceExaminerOptions {
  /** Worker threads, each with its own copy of the models (about 1 s to load); default: the cores. */
  threads?: number;
  /** Pictures that may wait for a worker; one more is refused with FaceExaminerBusy. Default: 4 per thread. */
  maxQueue?: number;
  /** 'tiny' (default) or 'ssd' (SSD MobileNet v1: finds more faces, about twice the CPU). */
  detector?: FaceDetectorName;
  /** The detector's score floor, 0..1; default 0.4 for tiny, 0.5 for ssd. */
  minScore?: number;
  /**
   * Look again at twice the resolution when a large picture shows no face at first (default false:
   * it costs several times the first look; `examine` can ask for it per picture).
   */
  smallFaces?: boolean;
  /** Told of a worker's error that belongs to no picture (piscina's 'error' event); by default ignored. */
  onWorkerError?: (err: Error) => void;
}

/**
 * The worker script. Worker threads run JavaScript only: from dist/ it sits beside this file; when
 * this file runs from src/ (jest compiles TypeScript in-process), the built one in ../dist is used,
 * so `tsc -b packages/face-engine` must have run first (`make test` builds before it tests).
 */
export function faceWorkerFilename(): string {
  const beside = path.join(__dirname, 'face-worker.js');
  if (existsSync(beside)) return beside;
  const built = path.join(__dirname, '..', 'dist', 'face-worker.js');
  if (existsSync(built)) return built;
  throw new Error(
    `no face worker script at ${beside} or ${built}: build it with \`tsc -b packages/face-engine\``,
  );
}

/** A face examiner whose pictures are decoded and examined in a pool of worker threads (piscina). */
export function createFaceExaminer(options: FaceExaminerOptions = {}): FaceExaminer {
  const threads = Math.max(1, Math.floor(options.threads ?? os.availableParallelism()));
  const maxQueue = Math.max(0, Math.floor(options.maxQueue ?? threads * 4));
  const detector = options.detector ?? 'tiny';
  const settings: FaceExaminationSettings = {
    detector,
    minScore: options.minScore ?? DEFAULT_MIN_SCORE[detector],
    smallFaces: options.smallFaces ?? false,
  };
  const pool = new Piscina<FaceTask, ExaminationOutcome>({
    filename: faceWorkerFilename(),
    // Every worker starts at once and stays: loading the models takes about a second of CPU.
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Infinity,
    workerData: settings,
  });
  // Without a listener, an 'error' event would end the process.
  pool.on('error', (err: Error) => options.onWorkerError?.(err));
  let closing: Promise<void> | undefined;

  return {
    async examine(bytes, { timeoutMs, signal, smallFaces, fingerprint } = {}): Promise<FaceExamination> {
      if (closing !== undefined) throw new Error('the face examiner is closed');
      signal?.throwIfAborted();
      // A picture given to an idle worker does not wait; with maxQueue 0 none may wait.
      if (pool.queueSize >= maxQueue && (maxQueue > 0 || pool.idleThreads === 0)) {
        throw new FaceExaminerBusy(pool.queueSize, maxQueue);
      }
      // Aborting piscina's task takes a waiting picture out of the queue, and ends the worker of
      // a picture being examined (piscina starts another), so a timed-out picture holds no worker.
      const abort = new AbortController();
      let timedOut = false;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              abort.abort();
            }, timeoutMs);
      const forward = (): void => abort.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      try {
        // A copy of just these bytes, moved to the worker (cloning a view would copy its whole buffer).
        const own = new Uint8Array(bytes);
        const outcome = await pool.run(
          { bytes: own, smallFaces, ...(fingerprint === true ? { fingerprint } : {}) },
          { signal: abort.signal, transferList: [own.buffer] },
        );
        if ('refused' in outcome) throw new NotAnImageError(outcome.refused.reason, outcome.refused.message);
        const { examination } = outcome;
        // Descriptors arrive as the Node realm's Float32Array; a copy is the caller's (jest runs in a vm context).
        const faces = examination.faces.map((face) => ({
          ...face,
          descriptor: new Float32Array(face.descriptor),
        }));
        // The fingerprint's arrays come from the worker's realm as well: the caller's own copies.
        const print = examination.fingerprint;
        return {
          ...examination,
          faces,
          ...(print === undefined
            ? {}
            : {
                fingerprint: {
                  words: new Uint32Array(print.words),
                  ...(print.probes === undefined ? {} : { probes: new Uint32Array(print.probes) }),
                },
              }),
        };
      } catch (err) {
        if (timedOut) throw new FaceExaminationTimeout(timeoutMs ?? 0);
        throw err;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', forward);
      }
    },
    get queued(): number {
      return pool.queueSize;
    },
    close(): Promise<void> {
      closing ??= pool.destroy();
      return closing;
    },
  };
}
