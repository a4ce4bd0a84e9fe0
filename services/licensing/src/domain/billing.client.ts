import { usageFiguresSchema, usagePath } from '@svc/contracts/billing';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Cents } from '@svc/money';
import { createServiceClient, type ServiceClient } from '@svc/service-kit';
import type { Registry } from 'prom-client';

/** A license's usage of one period, as billing (its owner) holds it: zeros when nothing was reported. */
export interface UsageFigures {
  subscribers: number;
  messages: number;
  revenueCents: Cents;
  royaltyDueCents: Cents;
}

/** Billing, asked for the usage a license's detail shows (docs/adr/0016: billing owns usage). */
export interface BillingPort {
  /** Throws AppError SERVICE_UNAVAILABLE when billing cannot answer. */
  usageOf(licenseId: string, period: string): Promise<UsageFigures>;
  close(): Promise<void>;
}

function unavailable(message: string, details: Record<string, unknown>, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, {
    headers: { 'Retry-After': '1' },
    details: { reason: 'billing_error', ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Billing over HTTP: a short timeout and a circuit breaker, licensing's own internal token.
 * `baseUrl` may be a function: inside the embedded default billing starts after licensing, so
 * its URL is known only by the first request.
 */
export class HttpBillingClient implements BillingPort {
  private http: ServiceClient | undefined;

  constructor(
    private readonly options: {
      baseUrl: string | (() => string | undefined);
      internalJwtSecret: string;
      environment: 'sandbox' | 'production';
      timeoutMs: number;
      registry?: Registry;
      logger?: Logger;
    },
  ) {}

  private client(): ServiceClient {
    if (this.http !== undefined) return this.http;
    const { baseUrl, ...options } = this.options;
    const url = typeof baseUrl === 'function' ? baseUrl() : baseUrl;
    if (url === undefined) throw unavailable('billing has not started', {});
    this.http = createServiceClient({
      service: 'licensing',
      target: 'billing',
      baseUrl: url,
      internalJwtSecret: options.internalJwtSecret,
      environment: options.environment,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    return this.http;
  }

  async usageOf(licenseId: string, period: string): Promise<UsageFigures> {
    const response = await this.client().json<unknown>({ method: 'GET', path: usagePath(licenseId, period) });
    const parsed = response.status === 200 ? usageFiguresSchema.safeParse(response.body) : undefined;
    if (parsed?.success !== true) {
      throw unavailable(`billing answered ${response.status}`, { status: response.status }, parsed?.error);
    }
    const figures = parsed.data.data;
    return {
      subscribers: figures.subscribers,
      messages: figures.messages,
      revenueCents: BigInt(figures.revenueCents),
      royaltyDueCents: BigInt(figures.royaltyDueCents),
    };
  }

  async close(): Promise<void> {
    await this.http?.close();
  }
}
