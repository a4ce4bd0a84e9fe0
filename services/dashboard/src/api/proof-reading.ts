import { fromBase64 } from '@svc/sdk/transparency';

// What both proof checks share: a same-origin fetch for the SDK, and a JWS's claims read as written (before any check).

/** Same-origin fetch: the dashboard's Content-Security-Policy allows no other (connect-src 'self'). */
function sameOrigin(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return parsed.origin === window.location.origin ? parsed.href : `${parsed.pathname}${parsed.search}`;
}

export const browserFetch: typeof fetch = (input, init) =>
  fetch(sameOrigin(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url), {
    ...init,
    credentials: 'omit',
  });

interface Claimed {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The header and claims as written, before any check (shown as unverified when a check fails). */
export function claimedOf(jws: string): Claimed | undefined {
  const [header, payload] = jws.split('.');
  try {
    const decode = (part: string) =>
      JSON.parse(new TextDecoder().decode(fromBase64(part))) as Record<string, unknown>;
    return { header: decode(header ?? ''), payload: decode(payload ?? '') };
  } catch {
    return undefined;
  }
}

export const text = (value: unknown) =>
  Array.isArray(value) ? value.map(String).join(', ') : value === undefined ? '—' : String(value);
