import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the catcher received, decoded enough to read its text and follow its links. */
export interface CaughtMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** Every http(s) link in the text, in order. */
  links: string[];
  receivedAt: Date;
}

export interface MailCatcherOptions {
  /** 0 (default): any free port. */
  port?: number;
  host?: string;
  /** Called with each message as it arrives (the embedded default logs its subject and links). */
  onMail?: (mail: CaughtMail) => void;
}

/**
 * A local SMTP server that keeps what it receives in memory (development, tests, `make dev`):
 * no authentication, no TLS, loopback only by default. `refuse(n)` makes it answer the next n
 * messages with a temporary failure (451), as a real server under trouble would.
 */
export class MailCatcher {
  private readonly mails: CaughtMail[] = [];
  private readonly waiters = new Set<() => void>();
  private refusals = 0;
  private server: SMTPServer | undefined;
  private boundPort = 0;

  constructor(private readonly options: MailCatcherOptions = {}) {}

  /** Starts listening; resolves once the port is bound. */
  async start(): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.refusals > 0) {
            this.refusals -= 1;
            const err = new Error('Try again later (the catcher was told to refuse)') as Error & {
              responseCode: number;
            };
            err.responseCode = 451;
            callback(err);
            return;
          }
          const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
          this.mails.push(mail);
          this.options.onMail?.(mail);
          for (const wake of this.waiters) wake();
          callback();
        });
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server.server.address() as AddressInfo).port;
    return this;
  }

  get port(): number {
    return this.boundPort;
  }

  /** The SMTP_URL that reaches this catcher. */
  get url(): string {
    return `smtp://${this.options.host ?? '127.0.0.1'}:${this.boundPort}`;
  }

  /** Everything received so far, oldest first (optionally only the mail to one address). */
  inbox(to?: string): CaughtMail[] {
    if (to === undefined) return [...this.mails];
    const wanted = to.toLowerCase();
    return this.mails.filter((mail) => mail.to.some((address) => address.toLowerCase() === wanted));
  }

  /** The next temporary failures to answer with (451), before accepting again. */
  refuse(count: number): void {
    this.refusals = count;
  }

  /** Resolves with the first mail matching `match` (already received or arriving within `timeoutMs`). */
  async waitFor(match: (mail: CaughtMail) => boolean, timeoutMs = 10_000): Promise<CaughtMail> {
    // A timeout, not a time of day: the monotonic clock.
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.mails.find(match);
      if (found !== undefined) return found;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no matching mail within ${timeoutMs} ms (inbox: ${this.mails.length})`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Splits a message into headers and body and decodes a single-part text body (7bit, quoted-printable or base64). */
export function parseMail(raw: string): CaughtMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const rawBody = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(rawBody)
        : rawBody;
  const addresses = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((part) => /<([^>]+)>/.exec(part)?.[1] ?? part.trim())
      .filter((address) => address !== '');
  return {
    to: addresses(headers.get('to')),
    from: headers.get('from') ?? '',
    subject: decodeEncodedWords(headers.get('subject') ?? ''),
    text,
    links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]),
    receivedAt: new Date(),
  };
}

function decodeQuotedPrintable(body: string): string {
  // A literal % first, so that only the =XX escapes become percent escapes.
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/%/g, '%25')
    .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => `%${hex}`);
  try {
    return decodeURIComponent(bytes);
  } catch {
    return body;
  }
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), which nodemailer uses for non-ASCII subjects. */
function decodeEncodedWords(value: string): string {
  return value.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_m, kind: string, data: string) =>
    kind.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}
