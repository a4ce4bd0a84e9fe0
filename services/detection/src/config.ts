import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** Detection's environment (README, Configuration). */
export const detectionConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8082),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/detection'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** Development and tests only: lets image URLs reach private addresses (docs/spec/contracts.md §11). */
  SVC_ALLOW_PRIVATE_FETCH: env.boolean(false),
  /** How often each replica reads the projection's changes into its in-memory index. */
  INDEX_SYNC_INTERVAL_MS: env.int(250),
  /** This service's files on the pod (the index snapshot); not PGlite's directory. */
  DATA_DIR: z.string().default('.data/detection-index'),
  /** The index snapshot (ADR 0007); default DATA_DIR/identity-index.snapshot. A missing file means a rebuild. */
  INDEX_SNAPSHOT_PATH: z.string().optional(),
  /** Whether this replica loads and writes index snapshots at all. */
  INDEX_SNAPSHOTS: env.boolean(true),
  /** How often a replica writes a new snapshot when its index has changed since the last one. */
  INDEX_SNAPSHOT_INTERVAL_MS: env.int(10 * 60 * 1000),
  /** How often reference images waiting for a fingerprint are fetched; 0 turns it off. */
  REFERENCE_IMAGE_INTERVAL_MS: env.int(1000),
  /** Worker threads examining faces (decode, detection, descriptors); 0: the cores this process may use, less one. */
  FACE_THREADS: env.int(0),
  /** How long a check waits for the faces of its picture before it answers `likeness.band: unavailable`. */
  FACE_CHECK_TIMEOUT_MS: env.int(1000),
  /** How long a batch (and an avatar evaluation) waits for the faces of its pictures, in all. */
  FACE_BATCH_TIMEOUT_MS: env.int(3500),
  /**
   * How long a check waits for its picture to arrive (then 422 INVALID_IMAGE_URL, reason timeout):
   * under the gateway's 1.9 s, so a platform's slow picture never times the gateway out (which
   * would count against the breaker every platform shares). A batch's pictures get the second.
   */
  PICTURE_FETCH_CHECK_MS: env.int(1200),
  PICTURE_FETCH_BATCH_MS: env.int(3000),
  /** A check's whole time for its picture, fetch and faces (the faces get what the fetch left). */
  CHECK_PICTURE_BUDGET_MS: env.int(1500),
  /** One platform's pictures being examined or waiting at most (more: 429 RATE_LIMITED). */
  FACE_PLATFORM_BUDGET: env.int(8),
  /**
   * The most pixels of a checked picture (header read before anything is decoded; more: 422
   * INVALID_IMAGE_URL, reason too_many_pixels). A worker decodes one picture at a time and a
   * 100-megapixel PNG takes it about a second, which another platform's check would wait out.
   * Reference pictures keep the 100-megapixel limit of the fingerprint.
   */
  CHECK_MAX_PIXELS: env.int(24_000_000),
});

export type DetectionConfig = z.output<typeof detectionConfigSchema>;
