import sharp from 'sharp';
import { CROP_VARIANTS, FINGERPRINT_WORDS, HASH_WORDS, type ImageFingerprint } from './fingerprint';
import { NotAnImageError } from './not-an-image-error';
import { centredCrop, dctHash, differenceHash, type GreyRaster } from './perceptual-hash';

/** Pictures with more pixels than this are refused before they are decoded (decompression bombs). */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Raster formats accepted; SVG, PDF and the like are refused even though sharp could render them. */
export const RASTER_FORMATS: ReadonlySet<string> = new Set([
  'jpeg',
  'png',
  'webp',
  'gif',
  'tiff',
  'avif',
  'heif',
]);

// The picture is decoded once to this square greyscale raster; the hashes are taken from it.
const WORKING_SIZE = 128;

function refusal(cause: unknown, otherwise: 'unsupported_format' | 'corrupt'): NotAnImageError {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/pixel limit/i.test(message)) {
    return new NotAnImageError('too_many_pixels', `the picture has more than ${MAX_INPUT_PIXELS} pixels`, {
      cause,
    });
  }
  return otherwise === 'corrupt'
    ? new NotAnImageError('corrupt', `the picture cannot be decoded (${message})`, { cause })
    : new NotAnImageError('unsupported_format', 'not a picture in a format that can be read', { cause });
}

async function decode(bytes: Buffer): Promise<GreyRaster> {
  // failOn 'error': truncated or corrupt data is refused, a mere decoder warning is not.
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' as const };
  let format: string | undefined;
  try {
    ({ format } = await sharp(bytes, options).metadata());
  } catch (cause) {
    throw refusal(cause, 'unsupported_format');
  }
  if (format === undefined || !RASTER_FORMATS.has(format)) {
    throw new NotAnImageError('unsupported_format', `not a raster picture (${format ?? 'unknown format'})`);
  }
  try {
    const { data, info } = await sharp(bytes, options)
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .greyscale()
      // Aspect ratio ignored on purpose: the hash describes the picture's layout, whatever its shape.
      .resize(WORKING_SIZE, WORKING_SIZE, { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1) throw new Error(`expected one channel, got ${info.channels}`);
    return {
      width: info.width,
      height: info.height,
      pixels: new Uint8Array(data.buffer, data.byteOffset, data.length),
    };
  } catch (cause) {
    throw refusal(cause, 'corrupt');
  }
}

/**
 * Decodes a raster picture (sharp) and returns its perceptual fingerprint. Throws NotAnImageError
 * for bytes that are not a decodable raster picture, or that have more than 100 megapixels.
 */
export async function fingerprintImage(bytes: Buffer): Promise<ImageFingerprint> {
  const raster = await decode(bytes);
  const words = new Uint32Array(FINGERPRINT_WORDS);
  CROP_VARIANTS.forEach((fraction, variant) => {
    const region = centredCrop(raster, fraction);
    dctHash(raster, region, words, variant * HASH_WORDS);
    differenceHash(raster, region, words, variant * HASH_WORDS + 2);
  });
  return { words };
}
