export { IMAGE_MATCH_THRESHOLD } from './thresholds';
