import { snapshotPath } from '@svc/contracts/common';
import { INTERNAL_LICENSE_PATH, licenseSnapshotSchema, type LicenseSnapshot } from '@svc/contracts/licensing';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { createServiceClient, type ServiceClient } from '@svc/service-kit';
import type { Registry } from 'prom-client';

/** Licensing, asked about a license the projection has not heard of yet (ADR 0010). */
export interface LicensingPort {
  /**
   * The license as licensing holds it now, or null when licensing says there is no such license.
   * Throws AppError SERVICE_UNAVAILABLE when licensing cannot answer.
   */
  licenseSnapshot(licenseId: string): Promise<LicenseSnapshot | null>;
  close(): Promise<void>;
}

/** Licensing over HTTP: a short timeout and a circuit breaker, billing's own internal token. */
export class HttpLicensingClient implements LicensingPort {
  private readonly http: ServiceClient;

  constructor(options: {
    baseUrl: string;
    internalJwtSecret: string;
    environment: 'sandbox' | 'production';
    timeoutMs: number;
    registry?: Registry;
    logger?: Logger;
  }) {
    this.http = createServiceClient({
      service: 'billing',
      target: 'licensing',
      baseUrl: options.baseUrl,
      internalJwtSecret: options.internalJwtSecret,
      environment: options.environment,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  async licenseSnapshot(licenseId: string): Promise<LicenseSnapshot | null> {
    const response = await this.http.json<unknown>({
      method: 'GET',
      path: snapshotPath(INTERNAL_LICENSE_PATH, licenseId),
    });
    if (response.status === 404) return null;
    const parsed = response.status === 200 ? licenseSnapshotSchema.safeParse(response.body) : undefined;
    if (parsed?.success !== true) {
      throw new AppError('SERVICE_UNAVAILABLE', `licensing answered ${response.status}`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'licensing_error', status: response.status },
        ...(parsed === undefined ? {} : { cause: parsed.error }),
      });
    }
    return parsed.data.data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
