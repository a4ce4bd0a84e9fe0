import Piscina from 'piscina';
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
}

const settings = Piscina.workerData as FaceExaminationSettings;

async function start(): Promise<(task: FaceTask) => Promise<ExaminationOutcome>> {
  await prepareFaceModels(settings.detector);
  return (task) =>
    examinePicture(task.bytes, { ...settings, smallFaces: task.smallFaces ?? settings.smallFaces });
}

export default start();
