export { fingerprintImage, MAX_INPUT_PIXELS, picturePixels, RASTER_FORMATS } from './fingerprint-image';
export {
  DEFAULT_MATCH_THRESHOLD,
  FINGERPRINT_WORDS,
  HASH_BITS,
  PROBE_VARIANTS,
  PROBE_WORDS,
  REFERENCE_VARIANTS,
  fingerprintDistance,
  fingerprintFromHex,
  fingerprintToHex,
  imageSimilarity,
  isCurrentFingerprintHex,
  type ImageFingerprint,
} from './fingerprint';
export { NotAnImageError, isNotAnImageError, type NotAnImageReason } from './not-an-image-error';
export { ReferenceImageIndex, type ImageSearchWork, type ReferenceMatch } from './reference-image-index';
