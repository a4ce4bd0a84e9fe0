import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as faceapi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import {
  MAX_INPUT_PIXELS,
  NotAnImageError,
  RASTER_FORMATS,
  type NotAnImageReason,
} from '@svc/image-fingerprint';
import { installWasmCopyKernels } from './tfjs-wasm-kernels';
import type { DetectedFace, FaceExamination } from './types';

// What one worker thread does (face-worker.ts): decode the picture with sharp, find the faces
// with face-api on tfjs's WebAssembly backend, describe each. Kept apart from the worker so the
// tests can run it in their own thread too (tensor leaks, coverage).

/** Which face detector examines the pictures: 'tiny' (fast) or 'ssd' (SSD MobileNet v1, about twice the CPU). */
export type FaceDetectorName = 'tiny' | 'ssd';

/** How the faces are looked for; the same for every picture a pool examines. */
export interface FaceExaminationSettings {
  detector: FaceDetectorName;
  /** The detector's score below which a candidate is not a face. */
  minScore: number;
  /** When the first look finds no face, look again at twice the resolution (tiny detector only). */
  smallFaces: boolean;
}

/** What a worker answers: an examination, or why the bytes are not a picture (errors do not cross threads intact). */
export type ExaminationOutcome =
  { examination: FaceExamination } | { refused: { reason: NotAnImageReason; message: string } };

/** The detector's score floors by default: tiny finds every face of the demo photos but one at 0.4 without false ones. */
export const DEFAULT_MIN_SCORE: Readonly<Record<FaceDetectorName, number>> = { tiny: 0.4, ssd: 0.5 };

// The picture is examined at most this many pixels a side: a 1920-px photo takes 700-1800 ms CPU
// at full size and about 150 ms at this one; a face then needs to be about 45 px tall to be found.
const EXAMINED_SIDE = 640;
// The tiny detector's input (a multiple of 32): 512 finds the faces of the demo photos that 416 misses.
const TINY_INPUT_SIZE = 512;
// The second look for small faces: up to this many pixels a side, the detector's input at most 832
// (faces down to about 30 px in the first raster; 1024 finds 25 px ones but triples the worker's
// WebAssembly heap, to about 770 MB).
const SMALL_FACES_SIDE = 1280;
const SMALL_FACES_INPUT_SIZE = 832;
// Faces smaller than this in the examined raster are dropped: the recognition net scales a face to
// 150 px, and below about 24 px its descriptor no longer tells people apart.
const MIN_FACE_PIXELS = 24;

const SHARP_OPTIONS = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' as const };

interface Raster {
  pixels: Uint8Array;
  width: number;
  height: number;
}

const prepared = new Map<FaceDetectorName, Promise<void>>();
let backendReady: Promise<void> | undefined;

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

async function startBackend(): Promise<void> {
  // Local .wasm files (false: read them from disk, not with fetch): nothing is downloaded at run time.
  const wasmFile = require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm');
  setWasmPaths(`${path.dirname(wasmFile)}/`, false);
  if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs WebAssembly backend did not start');
  await tf.ready();
  // face-api's bundle requires @tensorflow/tfjs itself: it must be this very copy, with this backend.
  if ((faceapi.tf.ENV as unknown) !== tf.ENV) throw new Error('face-api runs on another copy of tfjs');
  installWasmCopyKernels();
}

/** Starts tfjs's WebAssembly backend and loads face-api's weights from its package (once per thread). */
export function prepareFaceModels(detector: FaceDetectorName): Promise<void> {
  let ready = prepared.get(detector);
  if (ready === undefined) {
    backendReady ??= startBackend();
    const started = backendReady;
    ready = (async () => {
      await started;
      const modelDir = path.join(packageDir('@vladmandic/face-api'), 'model');
      const nets: { isLoaded: boolean; loadFromDisk(dir: string): Promise<void> }[] = [
        detector === 'ssd' ? faceapi.nets.ssdMobilenetv1 : faceapi.nets.tinyFaceDetector,
        faceapi.nets.faceLandmark68Net,
        faceapi.nets.faceRecognitionNet,
      ];
      for (const net of nets) if (!net.isLoaded) await net.loadFromDisk(modelDir);
    })();
    prepared.set(detector, ready);
  }
  return ready;
}

function refusal(cause: unknown): NotAnImageError {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/pixel limit/i.test(message)) {
    return new NotAnImageError('too_many_pixels', `the picture has more than ${MAX_INPUT_PIXELS} pixels`, {
      cause,
    });
  }
  return new NotAnImageError('corrupt', `the picture cannot be decoded (${message})`, { cause });
}

/** The picture's size once turned upright by its EXIF orientation; refuses what is not a raster picture. */
async function uprightSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(bytes, SHARP_OPTIONS).metadata();
  } catch (cause) {
    const reason = /pixel limit/i.test(String(cause)) ? 'too_many_pixels' : 'unsupported_format';
    throw new NotAnImageError(reason, 'not a picture in a format that can be read', { cause });
  }
  // SVG, PDF and the like are refused although sharp could render them (as @svc/image-fingerprint does).
  if (metadata.format === undefined || !RASTER_FORMATS.has(metadata.format)) {
    throw new NotAnImageError(
      'unsupported_format',
      `not a raster picture (${metadata.format ?? 'unknown format'})`,
    );
  }
  const { width, height } = metadata.autoOrient;
  if (width * height > MAX_INPUT_PIXELS) {
    throw new NotAnImageError('too_many_pixels', `the picture has more than ${MAX_INPUT_PIXELS} pixels`);
  }
  return { width, height };
}

/** RGB, 8 bits, upright, transparency flattened onto white, at most `side` pixels a side. */
async function decodeRaster(bytes: Buffer, side: number): Promise<Raster> {
  try {
    const { data, info } = await sharp(bytes, SHARP_OPTIONS)
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected three channels, got ${info.channels}`);
    return {
      pixels: new Uint8Array(data.buffer, data.byteOffset, data.length),
      width: info.width,
      height: info.height,
    };
  } catch (cause) {
    throw refusal(cause);
  }
}

function detectorOptions(settings: FaceExaminationSettings, inputSize: number): faceapi.FaceDetectionOptions {
  return settings.detector === 'ssd'
    ? new faceapi.SsdMobilenetv1Options({ minConfidence: settings.minScore, maxResults: 100 })
    : new faceapi.TinyFaceDetectorOptions({ inputSize, scoreThreshold: settings.minScore });
}

/** Every face in the raster, its box in the picture's own pixels (`scale`: raster px per picture px). */
async function findFaces(
  raster: Raster,
  options: faceapi.FaceDetectionOptions,
  scale: number,
  upright: { width: number; height: number },
): Promise<DetectedFace[]> {
  const input = faceapi.tf.tensor3d(raster.pixels, [raster.height, raster.width, 3], 'int32');
  try {
    const found = await faceapi.detectAllFaces(input, options).withFaceLandmarks().withFaceDescriptors();
    const faces: DetectedFace[] = [];
    for (const face of found) {
      const { x, y, width, height } = face.detection.box;
      // The detector's box may reach past the picture's edges: keep the part inside it.
      const left = Math.max(0, x);
      const top = Math.max(0, y);
      const right = Math.min(raster.width, x + width);
      const bottom = Math.min(raster.height, y + height);
      if (right - left < MIN_FACE_PIXELS || bottom - top < MIN_FACE_PIXELS) continue;
      const x0 = Math.round(left / scale);
      const y0 = Math.round(top / scale);
      const x1 = Math.min(upright.width, Math.round(right / scale));
      const y1 = Math.min(upright.height, Math.round(bottom / scale));
      const box = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
      faces.push({ box, score: face.detection.score, descriptor: face.descriptor });
    }
    return faces;
  } finally {
    input.dispose();
  }
}

// CPU time of this thread in ms, when the platform tells it: process.threadCpuUsage (Node 23.9+) or
// Linux's schedstat. process.cpuUsage would count every worker of the pool.
function threadCpuMs(): number | undefined {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (usage !== undefined) {
    const { user, system } = usage.call(process);
    return (user + system) / 1000;
  }
  try {
    const nanoseconds = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(nanoseconds) ? nanoseconds / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Examines one picture in this thread: every face found, with its box in the upright picture's
 * pixels and its descriptor. `cpuMs` is this thread's CPU time plus the time sharp took to decode
 * (sharp decodes in libuv's threads while this one waits); where the thread's CPU time cannot be
 * read, the elapsed time.
 */
export async function examinePicture(
  bytes: Uint8Array,
  settings: FaceExaminationSettings,
): Promise<ExaminationOutcome> {
  await prepareFaceModels(settings.detector);
  const startCpu = threadCpuMs();
  const start = performance.now();
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let decodeMs = 0;
  const decode = async (side: number): Promise<Raster> => {
    const before = performance.now();
    try {
      return await decodeRaster(buffer, side);
    } finally {
      decodeMs += performance.now() - before;
    }
  };
  try {
    const upright = await uprightSize(buffer);
    const raster = await decode(EXAMINED_SIDE);
    const scale = raster.width / upright.width;
    let faces = await findFaces(raster, detectorOptions(settings, TINY_INPUT_SIZE), scale, upright);
    const longest = Math.max(upright.width, upright.height);
    if (
      faces.length === 0 &&
      settings.smallFaces &&
      settings.detector === 'tiny' &&
      longest > EXAMINED_SIDE
    ) {
      // A second look for faces under about 45 px in the first raster (a crowd, a face far off).
      // It costs several times the first, and is spent on pictures without faces above all.
      const larger = await decode(SMALL_FACES_SIDE);
      const inputSize = Math.min(
        SMALL_FACES_INPUT_SIZE,
        Math.floor(Math.max(larger.width, larger.height) / 32) * 32,
      );
      faces = await findFaces(
        larger,
        detectorOptions(settings, inputSize),
        larger.width / upright.width,
        upright,
      );
    }
    const endCpu = threadCpuMs();
    const cpuMs =
      startCpu !== undefined && endCpu !== undefined
        ? endCpu - startCpu + decodeMs
        : performance.now() - start;
    return { examination: { faces, width: upright.width, height: upright.height, cpuMs } };
  } catch (err) {
    if (err instanceof NotAnImageError) return { refused: { reason: err.reason, message: err.message } };
    throw err;
  }
}
