import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MailCatcher, SmtpMailer, parseMail } from '../../src';

/** An SMTP peer whose link goes silent: it takes connections, optionally greets, then says nothing more. */
async function silentSmtp(greet: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    if (greet) socket.write('220 silent.example.com ESMTP\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('SMTP mailer and the local catcher', () => {
  let catcher: MailCatcher;
  let mailer: SmtpMailer;
  beforeAll(async () => {
    catcher = await new MailCatcher().start();
    mailer = new SmtpMailer({ url: catcher.url, from: 'Identity protection <no-reply@example.com>' });
  });
  afterAll(async () => {
    await mailer.close();
    await catcher.stop();
  });

  it('when a message is sent, then the catcher holds its subject, text and whole links', async () => {
    const link = `https://svc.example.com/dashboard/verify-email#token=${'a'.repeat(90)}`;
    await mailer.send({
      to: 'Ada@Example.com',
      subject: 'Confirm your address',
      text: `Open ${link} now — 100% yours.`,
    });
    const mail = await catcher.waitFor((m) => m.subject === 'Confirm your address');
    expect(mail.to).toEqual(['Ada@example.com']); // nodemailer lower-cases the domain
    expect(mail.links).toEqual([link]);
    expect(mail.text).toContain('— 100% yours.');
    expect(catcher.inbox('ada@example.com')).toHaveLength(1);
  });

  it('when the server refuses for a while, then the send fails and a later one arrives', async () => {
    catcher.refuse(1);
    await expect(mailer.send({ to: 'b@example.com', subject: 'Refused', text: 'x' })).rejects.toThrow();
    await mailer.send({ to: 'b@example.com', subject: 'Accepted', text: 'x' });
    expect(catcher.inbox('b@example.com').map((m) => m.subject)).toEqual(['Accepted']);
  });

  it.each([
    ['takes the connection and never greets', false],
    ['greets, then never answers', true],
  ])('when the server %s (a link gone silent), then the send fails within its timeout', async (_, greet) => {
    const peer = await silentSmtp(greet);
    const hung = new SmtpMailer({ url: peer.url, from: 'x <no-reply@example.com>', timeoutMs: 300 });
    try {
      const started = performance.now();
      await expect(hung.send({ to: 'c@example.com', subject: 'Hung', text: 'x' })).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await hung.close();
      await peer.close();
    }
  });

  it('when a subject is not ASCII, then it is decoded', () => {
    expect(parseMail('Subject: =?UTF-8?Q?Caf=C3=A9?=\r\nTo: x@example.com\r\n\r\nbody').subject).toBe('Café');
  });
});
