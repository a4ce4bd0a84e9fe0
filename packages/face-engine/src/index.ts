export * from './types';
export { faceDistance } from './face-distance';
export { createFaceExaminer, faceWorkerFilename, type FaceExaminerOptions } from './face-examiner';
export { FaceExaminationTimeout, FaceExaminerBusy } from './face-examiner.errors';
export { DEFAULT_MIN_SCORE, type FaceDetectorName } from './face-examination';
