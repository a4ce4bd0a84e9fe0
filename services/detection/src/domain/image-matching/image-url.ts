/**
 * Why `raw` cannot be an image URL by its syntax alone (the fetch guard checks the rest), or null:
 * it must be an absolute http(s) URL with a host. Pure, so a batch can check every URL first.
 */
export function imageUrlProblem(raw: string): string | null {
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
