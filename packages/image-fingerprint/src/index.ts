export { fingerprintImage, MAX_INPUT_PIXELS, RASTER_FORMATS } from './fingerprint-image';
export {
  CROP_VARIANTS,
  DEFAULT_MATCH_THRESHOLD,
  HASH_BITS,
  fingerprintDistance,
  fingerprintFromHex,
  fingerprintToHex,
  imageSimilarity,
  type ImageFingerprint,
} from './fingerprint';
export { NotAnImageError, isNotAnImageError, type NotAnImageReason } from './not-an-image-error';
export { ReferenceImageIndex, type ReferenceMatch } from './reference-image-index';
