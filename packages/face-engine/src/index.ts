export * from './types';
export { faceDistance } from './face-distance';
export { createFaceExaminer, faceWorkerFilename, type FaceExaminerOptions } from './face-examiner';
export { FaceExaminationTimeout, FaceExaminerBusy } from './face-examiner.errors';
export { DEFAULT_MIN_SCORE, type FaceDetectorName } from './face-examination';
export {
  FaceIndex,
  FACE_INDEX_VERSION,
  FACE_INDEX_FLAT_LIMIT,
  defaultCells,
  defaultProbes,
  listsFor,
  type FaceIndexParts,
  type FaceIndexRebuildOptions,
  type FaceMatch,
  type FaceSearchOptions,
} from './face-index';
export {
  IMPOSTOR_TAIL,
  LIKENESS_BUDGETS,
  LIKENESS_THRESHOLDS,
  bandOf,
  expectedFalseMatches,
  falseMatchProbability,
  identityDistanceOf,
  matchDistanceOf,
  reviewDistanceOf,
  scoreOf,
  type FaceLikenessBand,
} from './likeness';
export { fitLowerTail, normalCdf, normalQuantile, type NormalFit } from './likeness-tail';
export {
  PAIR_CATEGORIES,
  SMALL_FACE_PIXELS,
  bandQuality,
  identityDistances,
  impostorTailOf,
  labelFoundFaces,
  openSetFigures,
  pairCategoryOf,
  pairDistances,
  summarise,
  type BandQuality,
  type DistanceSummary,
  type ExaminedFace,
  type LabelledFace,
  type LabelledFaceSet,
  type LabelledPicture,
  type OpenSetRow,
  type PairCategory,
  type PairDistances,
} from './likeness-calibration';
export { seededRandom } from './face-index-training';
