import { FORGET_FACES_PATH, type ForgetFacesRequest } from '@svc/contracts/detection';
import type { Logger } from '@svc/logger';
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from '@svc/service-kit';

/** Detection, asked to forget faces before the registry answers (docs/spec/contracts.md §15). */
export interface FaceForgetter {
  /** Resolves once detection has forgotten them; rejects when it could not be told. */
  forgetFaces(request: ForgetFacesRequest): Promise<void>;
  close(): Promise<void>;
}

/** Detection over HTTP: a short timeout and a circuit breaker, the registry's own internal token. */
export class HttpDetectionClient implements FaceForgetter {
  private readonly http: ServiceClient;

  constructor(options: {
    baseUrl: string;
    internalJwtSecret: string;
    environment: 'sandbox' | 'production';
    timeoutMs: number;
    registry?: ServiceClientOptions['registry'];
    logger?: Logger;
  }) {
    this.http = createServiceClient({
      service: 'registry',
      target: 'detection',
      baseUrl: options.baseUrl,
      internalJwtSecret: options.internalJwtSecret,
      environment: options.environment,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  async forgetFaces(request: ForgetFacesRequest): Promise<void> {
    const response = await this.http.json<unknown>({
      method: 'POST',
      path: FORGET_FACES_PATH,
      body: request,
    });
    if (response.status !== 200) throw new Error(`detection answered ${response.status} to forget faces`);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
