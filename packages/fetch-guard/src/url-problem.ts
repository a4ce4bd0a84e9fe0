/**
 * Why `raw` cannot be fetched by its syntax alone (the guard checks the address when it fetches),
 * or null: it must be an absolute http(s) URL with a host. Pure, so a caller can check every URL
 * of a batch before fetching any.
 */
export function httpUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the scheme must be http or https';
  if (url.hostname === '') return 'the URL has no host';
  return null;
}
