import { excerptOf, RESPONSE_EXCERPT_CHARS } from '../../src/domain/deliver-due.use-case';

// What each attempt keeps of the receiver's answer (#32): enough to say why, never the whole body.
describe("an attempt's response excerpt", () => {
  it('when the receiver answers a long body, then the first 1,024 characters are kept, whole characters only', () => {
    const body = Buffer.from(`${'é'.repeat(2000)}`);
    const kept = excerptOf(body);
    expect(RESPONSE_EXCERPT_CHARS).toBe(1024);
    expect(kept).toBe('é'.repeat(1024));
  });

  it('when the receiver answers nothing, then nothing is kept; a NUL is replaced, as PostgreSQL text refuses it', () => {
    expect(excerptOf(Buffer.alloc(0))).toBeNull();
    expect(excerptOf(Buffer.from('a\u0000b'))).toBe('a\uFFFDb');
  });
});
