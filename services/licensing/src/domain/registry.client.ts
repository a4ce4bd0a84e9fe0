import { snapshotPath } from '@svc/contracts/common';
import { boxSnapshotSchema, INTERNAL_BOX_PATH, type BoxSnapshot } from '@svc/contracts/registry';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { createServiceClient, type ServiceClient } from '@svc/service-kit';
import type { Registry } from 'prom-client';

/** The registry, asked about a box the projection has not heard of yet (ADR 0010). */
export interface RegistryPort {
  /**
   * The box as the registry holds it now, or null when the registry says there is no such box.
   * Throws AppError SERVICE_UNAVAILABLE when the registry cannot answer.
   */
  boxSnapshot(boxId: string): Promise<BoxSnapshot | null>;
  close(): Promise<void>;
}

/** The registry over HTTP: a short timeout and a circuit breaker, licensing's own internal token. */
export class HttpRegistryClient implements RegistryPort {
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
      service: 'licensing',
      target: 'registry',
      baseUrl: options.baseUrl,
      internalJwtSecret: options.internalJwtSecret,
      environment: options.environment,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  async boxSnapshot(boxId: string): Promise<BoxSnapshot | null> {
    const response = await this.http.json<unknown>({
      method: 'GET',
      path: snapshotPath(INTERNAL_BOX_PATH, boxId),
    });
    if (response.status === 404) return null;
    const parsed = response.status === 200 ? boxSnapshotSchema.safeParse(response.body) : undefined;
    if (parsed?.success !== true) {
      throw new AppError('SERVICE_UNAVAILABLE', `the registry answered ${response.status}`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'registry_error', status: response.status },
        ...(parsed === undefined ? {} : { cause: parsed.error }),
      });
    }
    return parsed.data.data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
