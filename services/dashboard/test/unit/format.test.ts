import {
  formatAmount,
  formatDate,
  formatDateTime,
  formatMoney,
  formatMonth,
  formatNumber,
  formatPercent,
  formatPeriod,
  formatRemaining,
  formatTime,
  formatTimestamp,
} from '../../src/api/format';

// What the dashboard shows of dates, numbers and money (issue "Polish"), read as a visitor in the
// United States would (en-US, UTC here so that the hours do not depend on the machine).

const US = { locale: 'en-US', timeZone: 'UTC' };
/** Intl puts narrow no-break spaces before AM/PM: compared as plain spaces. */
const plain = (text: string) => text.replace(/\s/g, ' ');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-10T12:00:00.000Z');

describe('dates and times', () => {
  it('when a moment is shown, then it reads as a date and a time of day, in the time zone asked', () => {
    expect(plain(formatDateTime('2026-01-05T15:04:05Z', US))).toBe('Jan 5, 2026, 3:04 PM');
    expect(plain(formatDateTime(new Date('2026-01-05T15:04:05Z'), { ...US, timeZone: 'Asia/Tokyo' }))).toBe(
      'Jan 6, 2026, 12:04 AM',
    );
  });

  it('when a log entry is shown, then its time has the seconds', () => {
    expect(plain(formatTimestamp('2026-01-05T15:04:05Z', US))).toBe('Jan 5, 2026, 3:04:05 PM');
    expect(plain(formatTime('2026-01-05T15:04:05Z', US))).toBe('3:04:05 PM');
  });

  it('when a day is shown, then it has no time', () => {
    expect(formatDate('2026-11-28T00:00:00.000Z', US)).toBe('Nov 28, 2026');
  });

  it('when the date is unreadable, then a dash shows, never "Invalid Date"', () => {
    expect(formatDateTime('not a date', US)).toBe('—');
    expect(formatDate('', US)).toBe('—');
  });

  it('when a billing month is shown, then it is the same month in every time zone', () => {
    expect(formatMonth(2026, 11, 'long', { locale: 'en-US' })).toBe('November 2026');
    expect(formatPeriod('2026-01', 'short', { locale: 'en-US', timeZone: 'Pacific/Honolulu' })).toBe(
      'Jan 2026',
    );
    expect(formatPeriod('2026-13', 'long', US)).toBe('2026-13');
  });
});

describe('numbers and money', () => {
  it('when a count is shown, then its thousands are grouped', () => {
    expect(formatNumber(1000, US)).toBe('1,000');
    expect(formatNumber(1234567, { locale: 'de-DE' })).toBe('1.234.567');
  });

  it('when a rate is shown, then it is a percentage to a tenth', () => {
    expect(formatPercent(0.125, US)).toBe('12.5%');
    expect(formatPercent(0.2, US)).toBe('20%');
  });

  it('when money is shown, then it has its currency symbol and the currency’s own decimals', () => {
    expect(formatMoney(250.5, 'USD', US)).toBe('$250.50');
    expect(formatMoney(1234.5, 'JPY', US)).toBe('¥1,235');
    expect(plain(formatMoney(1.2345, 'BHD', US))).toBe('BHD 1.235');
    expect(plain(formatMoney(1234.5, 'EUR', { locale: 'de-DE' }))).toBe('1.234,50 €');
  });

  it('when an amount comes as a decimal string, then it is formatted exactly, not through a float', () => {
    expect(formatMoney('120', 'USD', US)).toBe('$120.00');
    expect(formatMoney(' 1.005 ', 'USD', US)).toBe('$1.01');
    expect(formatMoney('12345678901234567.89', 'USD', US)).toBe('$12,345,678,901,234,567.89');
    expect(formatMoney('-3.5', 'USD', US)).toBe('-$3.50');
  });

  it('when the amount or the currency cannot be read, then it shows as it came, with its code', () => {
    expect(formatMoney('twelve', 'USD', US)).toBe('twelve USD');
    expect(formatMoney(12.5, 'US', US)).toBe('12.50 US');
    expect(formatMoney(Number.NaN, 'USD', US)).toBe('NaN USD');
  });

  it('when the currency is not named, then the amount has two decimals and no symbol', () => {
    expect(formatAmount(1234.5, US)).toBe('1,234.50');
  });
});

describe('time remaining', () => {
  it('when a sandbox grace period ends tomorrow, then it says hours, not 30 days', () => {
    expect(formatRemaining(NOW + 23 * HOUR + 59 * 60_000, NOW, US)).toBe('in 23 hours');
    expect(formatRemaining(NOW + 24 * HOUR, NOW, US)).toBe('in 24 hours');
  });

  it('when two days or more are left, then it says days, never more than are left', () => {
    expect(formatRemaining(NOW + 2 * DAY, NOW, US)).toBe('in 2 days');
    expect(formatRemaining(NOW + 3 * DAY + 23 * HOUR, NOW, US)).toBe('in 3 days');
    expect(formatRemaining(NOW + 30 * DAY, NOW, US)).toBe('in 30 days');
  });

  it('when under an hour is left, then it says minutes, at least one', () => {
    expect(formatRemaining(NOW + 45 * 60_000, NOW, US)).toBe('in 45 minutes');
    expect(formatRemaining(NOW + 20_000, NOW, US)).toBe('in 1 minute');
  });

  it('when the deadline has passed, then it says how long ago it ended', () => {
    expect(formatRemaining(NOW - 2 * HOUR, NOW, US)).toBe('ended 2 hours ago');
    expect(formatRemaining(NOW - 5 * DAY, NOW, US)).toBe('ended 5 days ago');
    expect(formatRemaining(NOW, NOW, US)).toBe('ended 1 minute ago');
  });

  it('when the deadline is unreadable, then a dash shows', () => {
    expect(formatRemaining(Date.parse('not a date'), NOW, US)).toBe('—');
  });

  it('when the sandbox clock was moved 25 hours on, then a 24-hour grace period has ended', () => {
    const started = NOW;
    const expiresAt = started + 24 * HOUR;
    const sandboxNow = started + 25 * HOUR;
    expect(formatRemaining(expiresAt, sandboxNow, US)).toBe('ended 1 hour ago');
  });
});
