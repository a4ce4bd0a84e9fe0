// The bad values put in place of good ones: wrong types, odd Unicode, broken path segments and queries.

export const MAX_INT32 = 2_147_483_647;

/** Values of the wrong type, out of range or of odd Unicode, put in place of a valid field. */
export const NASTY_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  3_000_000_000,
  MAX_INT32 + 1,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'Ada\ud800',
  '\udc00x',
  '\ud83d',
  '\u202eevil\u202c',
  '\ufeffBOM',
  'z\u0301\u0301\u0301\u0301',
  '\u200b\u200d',
  '😀'.repeat(60),
  'x'.repeat(10_000),
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '1e400',
  {},
  [],
  [[[[]]]],
  ['a\u0000'],
  { 'k\u0000': 1 },
  { '\ud800': 'x' },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  Array.from({ length: 200 }, (_, i) => i),
];

/** Path segments that are not an id: bad percent-encoding, NUL, lone surrogates, huge, odd. */
export const BROKEN_PATH_SEGMENTS: readonly string[] = [
  '%E0%A4%A',
  '%zz',
  '%',
  '%00',
  'claim_%00',
  '%ED%A0%80',
  '%C0%80',
  '%FF',
  'a'.repeat(5_000),
  '%F0%9F%98%80',
  'caf%C3%A9',
  '%20',
  '%2F',
  '%0A',
  "'%20OR%201=1",
  'null',
  '-1',
];

export const BROKEN_QUERY_VALUES: readonly string[] = [
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '1e400',
  '-1',
  '99999999999999999999',
  '',
  'NaN',
  'true',
  'a'.repeat(300),
  '%zz',
];

export const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Nikola Tesla', 'Ông Văn', 'Zoë Ã', '李小龙'];
export const IMAGE_URLS = ['http://127.0.0.1:9/a.png', 'https://img.invalid/a.png'];
export const HOOK_URLS = ['https://hooks.invalid/svc', 'http://127.0.0.1:9/hook'];
