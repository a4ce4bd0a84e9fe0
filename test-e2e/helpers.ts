import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** One HTTP call with a bearer token, JSON in and out. */
export async function call(
  base: string,
  token: string | undefined,
  method: string,
  url: string,
  body?: unknown,
): Promise<Reply> {
  const response = await fetch(base + url, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
