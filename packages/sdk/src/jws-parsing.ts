import { base64url } from 'jose';

// Reading a compact JWS's segments and the plain values in it, before and apart from any signature check.

export type Header = Record<string, unknown> & { kid?: unknown; alg?: unknown; typ?: unknown };
export type Failure = 'malformed' | 'status_list_invalid';

export const SEGMENT = /^[A-Za-z0-9_-]+$/;
const decoder = new TextDecoder();

// A key set's few headers, each parsed once (they are never handed to a caller).
const headers = new Map<string, Header | undefined>();

export function headerOf(segment: string): Header | undefined {
  let header = headers.get(segment);
  if (header === undefined) {
    if (headers.size >= 64) headers.clear();
    header = jsonObjectOf(segment);
    headers.set(segment, header);
  }
  return header;
}

export function jsonObjectOf(segment: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(decoder.decode(base64url.decode(segment))) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function isoOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
