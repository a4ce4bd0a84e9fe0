import type { ImageFingerprint } from '@svc/image-fingerprint';

/** Numbers in one face descriptor (face-api's recognition net). */
export const DESCRIPTOR_LENGTH = 128;

/** A face found in a picture: where it is, how sure the detector is, and who it looks like. */
export interface DetectedFace {
  /** The face's box in the decoded picture's pixels. */
  box: { x: number; y: number; width: number; height: number };
  /** The detector's confidence, 0..1. */
  score: number;
  /** 128 numbers; two pictures of one person lie close (Euclidean distance). */
  descriptor: Float32Array;
}

/** What examining one picture found. */
export interface FaceExamination {
  faces: DetectedFace[];
  /** The picture's perceptual fingerprint (@svc/image-fingerprint), when asked for. */
  fingerprint?: ImageFingerprint;
  /** The decoded picture's size (before any downscaling for the detector). */
  width: number;
  height: number;
  /** CPU time the examination took in its worker, in milliseconds. */
  cpuMs: number;
}

/** Examines pictures off the event loop. */
export interface FaceExaminer {
  /**
   * Every face in the picture (encoded bytes: JPEG, PNG, WebP, ...). Rejects with a
   * NotAnImageError for bytes that are not a picture, and with FaceExaminationTimeout when the
   * picture was not examined within `timeoutMs` (the caller answers `likeness.band: unavailable`).
   */
  examine(
    bytes: Uint8Array,
    options?: {
      timeoutMs?: number;
      signal?: AbortSignal;
      /** Take the picture's perceptual fingerprint in the worker too (off the event loop). */
      fingerprint?: boolean;
      /**
       * When no face is found at first, look again at twice the resolution for faces under about
       * 45 px in 640 (a reference picture to enrol, say). Overrides the examiner's option; costs
       * several times the first look, in pictures without faces above all (README).
       */
      smallFaces?: boolean;
    },
  ): Promise<FaceExamination>;
  /** Pictures waiting for a worker now. */
  readonly queued: number;
  close(): Promise<void>;
}

/**
 * The recognition model whose descriptors this engine makes. Stored beside every enrolled
 * descriptor: descriptors of different models are never compared (a new model re-enrols).
 */
export const FACE_MODEL = 'face-api-1.7.15/resnet34-128';
