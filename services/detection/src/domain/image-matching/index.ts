export { IMAGE_MATCH_THRESHOLD } from './thresholds';
export { imageUrlProblem } from './image-url';
