import Piscina from 'piscina';
import { fingerprintImage } from '@svc/image-fingerprint';
import {
  examinePicture,
  prepareFaceModels,
  type ExaminationOutcome,
  type FaceExaminationSettings,
} from './face-examination';

// The script piscina runs in each worker thread (dist/face-worker.js, see face-examiner.ts). The
// worker loads the models before it takes its first picture: piscina awaits this default export.

/** One picture to examine. */
export interface FaceTask {
  bytes: Uint8Array;
  /** Overrides the pool's setting for this picture. */
  smallFaces?: boolean;
  /** Also take the picture's perceptual fingerprint here, off the caller's event loop. */
  fingerprint?: boolean;
}

const settings = Piscina.workerData as FaceExaminationSettings;

async function start(): Promise<(task: FaceTask) => Promise<ExaminationOutcome>> {
  await prepareFaceModels(settings.detector);
  return async (task) => {
    const examined = examinePicture(task.bytes, {
      ...settings,
      smallFaces: task.smallFaces ?? settings.smallFaces,
    });
    if (task.fingerprint !== true) return examined;
    // The fingerprint's hashing is JavaScript too: here it runs beside the faces, in this thread.
    // A picture it cannot read is refused by the examination already; its own refusal is dropped.
    const [outcome, fingerprint] = await Promise.all([
      examined,
      fingerprintImage(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength)).catch(
        () => undefined,
      ),
    ]);
    return 'examination' in outcome && fingerprint !== undefined
      ? { examination: { ...outcome.examination, fingerprint } }
      : outcome;
  };
}

export default start();
