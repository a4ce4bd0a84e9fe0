// The dashboard's one place for showing dates, numbers and money (issue "Polish"): Intl in the
// visitor's locale and time zone, each formatter made once and kept. Pure (no window, no clock), so
// the unit tests fix the locale and time zone through `FormatOptions`.

/** Who reads it: the visitor's locale and time zone unless a test or a page names them. */
export interface FormatOptions {
  locale?: string | undefined;
  timeZone?: string | undefined;
}

const formatters = new Map<string, unknown>();

/** One formatter per kind, locale and options: building an Intl formatter costs far more than using it. */
function cached<T>(kind: string, locale: string | undefined, options: object, make: () => T): T {
  const key = `${kind}|${locale ?? ''}|${JSON.stringify(options)}`;
  let formatter = formatters.get(key) as T | undefined;
  if (formatter === undefined) {
    formatter = make();
    formatters.set(key, formatter);
  }
  return formatter;
}

function dateTimeFormat(options: Intl.DateTimeFormatOptions, { locale, timeZone }: FormatOptions) {
  const all = timeZone === undefined ? options : { ...options, timeZone };
  return cached('date', locale, all, () => new Intl.DateTimeFormat(locale, all));
}

function numberFormat(options: Intl.NumberFormatOptions, { locale }: FormatOptions) {
  return cached('number', locale, options, () => new Intl.NumberFormat(locale, options));
}

/** What an unreadable date shows: a dash, never "Invalid Date". */
const NO_DATE = '—';

function dateOf(value: string | number | Date): Date | undefined {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A moment: `Jan 5, 2026, 3:04 PM` (en-US). */
export function formatDateTime(value: string | number | Date, options: FormatOptions = {}): string {
  const date = dateOf(value);
  return date === undefined
    ? NO_DATE
    : dateTimeFormat({ dateStyle: 'medium', timeStyle: 'short' }, options).format(date);
}

/** A moment to the second, for logs where events follow each other closely: `Jan 5, 2026, 3:04:05 PM`. */
export function formatTimestamp(value: string | number | Date, options: FormatOptions = {}): string {
  const date = dateOf(value);
  return date === undefined
    ? NO_DATE
    : dateTimeFormat({ dateStyle: 'medium', timeStyle: 'medium' }, options).format(date);
}

/** A day: `Jan 5, 2026` (en-US). */
export function formatDate(value: string | number | Date, options: FormatOptions = {}): string {
  const date = dateOf(value);
  return date === undefined ? NO_DATE : dateTimeFormat({ dateStyle: 'medium' }, options).format(date);
}

/** A time of day to the second: `3:04:05 PM` (en-US), for what happens within minutes. */
export function formatTime(value: string | number | Date, options: FormatOptions = {}): string {
  const date = dateOf(value);
  return date === undefined ? NO_DATE : dateTimeFormat({ timeStyle: 'medium' }, options).format(date);
}

/**
 * A calendar month (`month` 1–12): `November 2026`, or `Nov 2026` when short. A billing month is
 * the same month everywhere: it is never moved into the visitor's time zone.
 */
export function formatMonth(
  year: number,
  month: number,
  style: 'long' | 'short' = 'long',
  { locale }: FormatOptions = {},
): string {
  return dateTimeFormat({ month: style, year: 'numeric' }, { locale, timeZone: 'UTC' }).format(
    new Date(Date.UTC(year, month - 1, 1)),
  );
}

/** A period the API names `YYYY-MM`, as a month in words; anything else as it came. */
export function formatPeriod(period: string, style: 'long' | 'short' = 'long', options: FormatOptions = {}) {
  const match = /^(\d{4})-(\d{2})$/.exec(period);
  const month = Number(match?.[2]);
  if (match === null || month < 1 || month > 12) return period;
  return formatMonth(Number(match[1]), month, style, options);
}

/** A count: `12,345` (en-US). */
export function formatNumber(value: number, options: FormatOptions = {}): string {
  return numberFormat({}, options).format(value);
}

/** A rate (0.125) as a percentage: `12.5%` (en-US), to a tenth at most. */
export function formatPercent(ratio: number, options: FormatOptions = {}): string {
  return numberFormat({ style: 'percent', maximumFractionDigits: 1 }, options).format(ratio);
}

/** An amount of money whose currency the answer does not name: two decimals, `1,234.50` (en-US). */
export function formatAmount(amount: number, options: FormatOptions = {}): string {
  return numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 }, options).format(amount);
}

/** A decimal as the API writes it (`"12.5"`, `"-3"`): formatted exactly, never through a float. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * Money in its currency, with the currency's own fraction digits: `$1,234.50`, `¥1,235`,
 * `BHD 1.235` (en-US). An amount may come as a number or as a decimal string; a string that is no
 * number is shown as it came, and an amount in a malformed currency code with two decimals, each
 * followed by the code.
 */
export function formatMoney(amount: number | string, currency: string, options: FormatOptions = {}): string {
  const value = typeof amount === 'string' ? amount.trim() : amount;
  const readable = typeof value === 'number' ? Number.isFinite(value) : DECIMAL.test(value);
  if (!readable) return `${String(amount)} ${currency}`;
  try {
    // A decimal string is formatted as written (Intl.NumberFormat v3), not rounded through a float.
    return numberFormat({ style: 'currency', currency }, options).format(value as Intl.StringNumericLiteral);
  } catch {
    // Not an ISO 4217 code: the amount with two decimals and the code the API gave.
    return `${formatAmount(Number(value), options)} ${currency}`;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function relativeTimeFormat({ locale }: FormatOptions) {
  return cached('relative', locale, {}, () => new Intl.RelativeTimeFormat(locale, { numeric: 'always' }));
}

/**
 * How long until a deadline, from `nowMs` (the clock the deadline runs on: the sandbox's in the
 * sandbox): `in 23 hours`, `in 3 days`, `in 5 minutes`; once passed, `ended 2 hours ago`. Minutes
 * under an hour, hours under two days, days beyond; always rounded down, so a deadline is never
 * shown further away than it is.
 */
export function formatRemaining(untilMs: number, nowMs: number, options: FormatOptions = {}): string {
  const left = untilMs - nowMs;
  if (!Number.isFinite(left)) return NO_DATE;
  const span = Math.abs(left);
  const [count, unit]: [number, Intl.RelativeTimeFormatUnit] =
    span < HOUR
      ? [Math.max(1, Math.floor(span / MINUTE)), 'minute']
      : span < 2 * DAY
        ? [Math.floor(span / HOUR), 'hour']
        : [Math.floor(span / DAY), 'day'];
  const words = relativeTimeFormat(options);
  return left > 0 ? words.format(count, unit) : `ended ${words.format(-count, unit)}`;
}
