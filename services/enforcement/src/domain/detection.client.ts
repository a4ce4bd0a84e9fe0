import {
  AVATAR_EVALUATION_PATH,
  avatarEvaluationResponseSchema,
  BOX_MATCH_KEYS_PATH,
  boxMatchKeysResponseSchema,
  type BoxMatchKeysResponse,
  type AvatarEvaluationRequest,
  type AvatarMatch,
  type IndexKnowledge,
} from '@svc/contracts/detection';
import { systemClock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { createHttpClient, signInternalToken, type HttpClient } from '@svc/service-kit';
import type { Registry } from 'prom-client';
import type { Logger } from '@svc/logger';

/** The avatar as detection needs it. */
export interface AvatarToEvaluate {
  ref: string;
  name: string;
  description?: string | undefined;
  imageUrl?: string | undefined;
}

/**
 * Detection's answer to "which box does each avatar match?": a ref → its best match, or null; and
 * how far detection's index had read its projection (absent from a replica of an earlier release).
 */
export interface DetectionAnswers {
  matches: Map<string, AvatarMatch | null>;
  knowledge?: IndexKnowledge;
}

export interface DetectionPort {
  /** Throws AppError SERVICE_UNAVAILABLE when detection cannot answer (the caller retries later). */
  evaluate(avatars: AvatarToEvaluate[], boxId?: string): Promise<DetectionAnswers>;
  /**
   * The match keys of a box's identity (a box scan asks only about avatars that meet them). Throws
   * AppError SERVICE_UNAVAILABLE as `evaluate` does.
   */
  boxMatchKeys(boxId: string): Promise<BoxMatchKeysResponse>;
  close(): Promise<void>;
}

/** Enforcement's own identity in the internal token it signs for detection. */
const ENFORCEMENT_CLAIMS = {
  platformId: 'enforcement',
  keyId: 'service:enforcement',
  plan: 'enterprise' as const,
  role: 'platform' as const,
};
const TOKEN_TTL_SECONDS = 300;

/** Detection over HTTP: a keep-alive client with a timeout and a circuit breaker, signing its own internal token. */
export class HttpDetectionClient implements DetectionPort {
  private readonly http: HttpClient;
  private token: { value: string; renewAt: number } | undefined;

  constructor(
    private readonly options: {
      baseUrl: string;
      internalJwtSecret: string;
      environment: 'sandbox' | 'production';
      timeoutMs: number;
      registry?: Registry;
      logger?: Logger;
    },
  ) {
    this.http = createHttpClient({
      target: 'detection',
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  private bearer(): string {
    // Internal tokens are checked against real time by detection, never a sandbox clock.
    const now = systemClock.now().getTime();
    if (this.token === undefined || this.token.renewAt <= now) {
      const value = signInternalToken(
        this.options.internalJwtSecret,
        {
          ...ENFORCEMENT_CLAIMS,
          environment: this.options.environment,
        },
        { ttlSeconds: TOKEN_TTL_SECONDS },
      );
      this.token = { value, renewAt: now + (TOKEN_TTL_SECONDS - 60) * 1000 };
    }
    return this.token.value;
  }

  async evaluate(avatars: AvatarToEvaluate[], boxId?: string): Promise<DetectionAnswers> {
    const body: AvatarEvaluationRequest = { avatars, ...(boxId === undefined ? {} : { boxId }) };
    const response = await this.http.json<unknown>({
      method: 'POST',
      path: AVATAR_EVALUATION_PATH,
      headers: { authorization: `Bearer ${this.bearer()}` },
      body,
    });
    if (response.status !== 200) {
      throw new AppError('SERVICE_UNAVAILABLE', `detection answered ${response.status}`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'detection_error', status: response.status },
      });
    }
    const parsed = avatarEvaluationResponseSchema.safeParse(response.body);
    if (!parsed.success) {
      throw new AppError('SERVICE_UNAVAILABLE', 'detection answered with an unexpected body', {
        cause: parsed.error,
        details: { reason: 'detection_error' },
      });
    }
    const matches = new Map(parsed.data.results.map((result) => [result.ref, result.match]));
    return parsed.data.knowledge === undefined ? { matches } : { matches, knowledge: parsed.data.knowledge };
  }

  async boxMatchKeys(boxId: string): Promise<BoxMatchKeysResponse> {
    const response = await this.http.json<unknown>({
      method: 'GET',
      path: BOX_MATCH_KEYS_PATH.replace(':boxId', encodeURIComponent(boxId)),
      headers: { authorization: `Bearer ${this.bearer()}` },
    });
    if (response.status !== 200) {
      throw new AppError('SERVICE_UNAVAILABLE', `detection answered ${response.status}`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'detection_error', status: response.status },
      });
    }
    const parsed = boxMatchKeysResponseSchema.safeParse(response.body);
    if (!parsed.success) {
      throw new AppError('SERVICE_UNAVAILABLE', 'detection answered with an unexpected body', {
        cause: parsed.error,
        details: { reason: 'detection_error' },
      });
    }
    return parsed.data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
