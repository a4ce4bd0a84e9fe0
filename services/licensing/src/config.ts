import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** A text setting; empty counts as unset. */
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

/** Licensing's environment (README, Configuration). */
export const licensingConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8083),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/licensing'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** The registry, asked about a box the projection has not heard of yet (read-through). */
  REGISTRY_URL: env.url(['http', 'https']).default('http://127.0.0.1:8081'),
  /** Short: a license request waits for it. */
  REGISTRY_TIMEOUT_MS: env.int(2000),
  /** Billing, which owns usage: a license's detail shows the current period's figures from it (docs/adr/0016). */
  BILLING_URL: env.url(['http', 'https']).default('http://127.0.0.1:8085'),
  /** Short: a license's detail waits for it. */
  BILLING_TIMEOUT_MS: env.int(2000),
  /** How often the expiry job looks for due licenses; 0 turns it off. */
  LICENSE_EXPIRY_INTERVAL_MS: env.int(60_000),
  /** The deployment's public base URL: `iss` of license credentials and the base of their status list `uri`. */
  CREDENTIAL_ISSUER: env.url(['http', 'https']).default('http://localhost:8080'),
  /** How long the status list JWT is reused before it is built again; at most 5000 (docs/spec/contracts.md §16: a change shows within 60 s). */
  STATUS_LIST_CACHE_MS: env.int(5000),
  /**
   * The Ed25519 key that signs credentials and status lists: a PKCS#8 PEM, or a private JWK (JSON,
   * `kid` optional: the RFC 7638 thumbprint when absent). Or LICENSE_SIGNING_KEY_FILE, a path to
   * it. Neither: the sandbox generates one and keeps it in the database; production refuses to start.
   */
  LICENSE_SIGNING_KEY: optionalText,
  LICENSE_SIGNING_KEY_FILE: optionalText,
  /** A JSON array (or `{keys: [...]}`) of retired public JWKs, each with `notAfter`: still in the JWKS until then. */
  LICENSE_RETIRED_KEYS_FILE: optionalText,
  /** The same as text (a Secret's key read into the environment, as k8s/ does); not with the file. */
  LICENSE_RETIRED_KEYS: optionalText,
});

export type LicensingConfig = z.output<typeof licensingConfigSchema>;
