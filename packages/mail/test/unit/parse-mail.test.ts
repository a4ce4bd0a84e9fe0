import { parseMail } from '../../src';

describe('reading a caught message', () => {
  it('when the body is quoted-printable with soft line breaks, then the text and its links come back whole', () => {
    const raw = [
      'From: Identity protection <no-reply@example.com>',
      'To: Ada <ada@example.com>, bob@example.com',
      'Subject: Confirm your e-mail address',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Open https://svc.example.com/dashboard/verify-email#token=3Dabc=',
      'def =E2=80=94 100% yours.',
    ].join('\r\n');
    const mail = parseMail(raw);
    expect(mail.to).toEqual(['ada@example.com', 'bob@example.com']);
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.text).toBe('Open https://svc.example.com/dashboard/verify-email#token=abcdef — 100% yours.');
    expect(mail.links).toEqual(['https://svc.example.com/dashboard/verify-email#token=abcdef']);
  });

  it('when the body is base64 and the subject an encoded word, then both are decoded', () => {
    const raw = [
      'To: x@example.com',
      'Subject: =?UTF-8?B?Q2Fmw6k=?=',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('see http://localhost:8080/dashboard/sign-in').toString('base64'),
    ].join('\n');
    const mail = parseMail(raw);
    expect(mail.subject).toBe('Café');
    expect(mail.links).toEqual(['http://localhost:8080/dashboard/sign-in']);
  });
});
