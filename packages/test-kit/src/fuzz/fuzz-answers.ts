import { isErrorCode } from '@svc/errors';
import type { FuzzRequest } from './request-arbitraries';

// Sending one generated request and judging its answer.

/** True for the closed envelope's SERVICE_UNAVAILABLE with `details.reason` "timeout". */
export function ranOutOfTime(text: string): boolean {
  try {
    const error = (JSON.parse(text) as { error?: { code?: string; details?: { reason?: string } } }).error;
    return error?.code === 'SERVICE_UNAVAILABLE' && error.details?.reason === 'timeout';
  } catch {
    return false;
  }
}

export async function send(
  gatewayUrl: string,
  request: FuzzRequest,
  tokens: Record<string, string | undefined>,
) {
  const token = tokens[request.sender];
  const response = await fetch(gatewayUrl + request.url, {
    method: request.method,
    headers: { ...(token === undefined ? {} : { authorization: token }), ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, text: await response.text() };
}

/** What is wrong with an answer: a 5xx, an error without the envelope or a closed code, a leak. */
export function problemWith(
  status: number,
  text: string,
  request: FuzzRequest,
  markers: string[],
): string | undefined {
  if (status >= 500) return '5xx';
  if (status >= 400) {
    let body: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return 'error answer is not JSON';
    }
    if (!isErrorCode(body?.error?.code)) return 'error code outside the closed set';
    if (typeof body?.error?.message !== 'string') return 'error without a message';
  }
  if (request.sender !== 'admin') {
    const leaked = markers.find((marker) => text.includes(marker));
    if (leaked !== undefined) return `another platform's data in the answer (${leaked})`;
  }
  return undefined;
}
