import sharp from 'sharp';
import {
  FINGERPRINT_WORDS,
  HASH_WORDS,
  PROBE_VARIANTS,
  PROBE_WORDS,
  REFERENCE_VARIANTS,
  type ImageFingerprint,
  type ProbeVariant,
  type ReferenceVariant,
} from './fingerprint';
import { NotAnImageError } from './not-an-image-error';
import {
  cropFrame,
  dctHash,
  differenceHash,
  mirrorFrame,
  rotatedInnerFrame,
  prepareRaster,
  type Frame,
  type GreyRaster,
  type SampledRaster,
} from './perceptual-hash';

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

// The picture is decoded once to a greyscale raster of at most this many pixels a side, its
// aspect ratio kept (turning a picture is only a rotation in its own proportions); every hash is
// then sampled from it.
const WORKING_SIZE = 192;

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

/**
 * The picture's size in pixels from its header alone (nothing is decoded), or null when the bytes
 * are no picture sharp can read: what a caller weighs before it decodes a picture on its own thread.
 */
export async function picturePixels(bytes: Buffer): Promise<number | null> {
  try {
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    return width === undefined || height === undefined ? null : width * height;
  } catch {
    return null;
  }
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
      .resize(WORKING_SIZE, WORKING_SIZE, { fit: 'inside' })
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

/** The frame a probe looks at in the checked picture. */
function probeFrame(raster: GreyRaster, probe: ProbeVariant): Frame {
  if ('trim' in probe) return cropFrame(raster, probe.trim);
  // The picture as the reference turned by `turnedCanvas` degrees on an enlarged canvas: recover
  // the reference's proportions from the canvas's, then take the turned inner rectangle.
  const angle = (probe.turnedCanvas * Math.PI) / 180;
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const canvas = raster.width / raster.height;
  const aspect = (canvas * c - s) / (c - canvas * s);
  if (!(aspect > 0) || !Number.isFinite(aspect)) return cropFrame(raster, [0.15, 0.15, 0.15, 0.15]);
  const height = raster.width / (aspect * c + s);
  const width = aspect * height;
  const scale = Math.min(width / raster.width, height / raster.height);
  const trimX = (1 - (scale * width) / raster.width) / 2;
  const trimY = (1 - (scale * height) / raster.height) / 2;
  return cropFrame(raster, [trimX, trimY, trimX, trimY]);
}

/** The frame a stored hash looks at in a reference picture. */
function referenceFrame(raster: GreyRaster, variant: ReferenceVariant): Frame {
  return 'trim' in variant ? cropFrame(raster, variant.trim) : rotatedInnerFrame(raster, variant.degrees);
}

function hashInto(raster: SampledRaster, frame: Frame, words: Uint32Array, at: number): void {
  dctHash(raster, frame, words, at);
  differenceHash(raster, frame, words, at + 2);
}

/**
 * Decodes a raster picture (sharp) and returns its perceptual fingerprint: the hashes stored for
 * a reference picture and the probe hashes used when it is the picture being checked. Throws
 * NotAnImageError for bytes that are not a decodable raster picture, or that have more than 100
 * megapixels.
 */
export async function fingerprintImage(bytes: Buffer): Promise<ImageFingerprint> {
  const raster = prepareRaster(await decode(bytes));
  const words = new Uint32Array(FINGERPRINT_WORDS);
  REFERENCE_VARIANTS.forEach((variant, i) =>
    hashInto(raster, referenceFrame(raster, variant), words, i * HASH_WORDS),
  );
  const probes = new Uint32Array(PROBE_WORDS);
  PROBE_VARIANTS.forEach((probe, i) => {
    const frame = probeFrame(raster, probe);
    hashInto(raster, probe.mirrored ? mirrorFrame(frame) : frame, probes, i * HASH_WORDS);
  });
  return { words, probes };
}
