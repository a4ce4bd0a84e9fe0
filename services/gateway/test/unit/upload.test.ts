import { checkDeclaredType, newUploadId, sniffPictureType } from '../../src/domain/upload';

// The bytes decide what an uploaded file is (ADR 0024): PNG, JPEG and WebP by their magic numbers.
describe('uploaded pictures', () => {
  it('when the bytes start as a PNG, a JPEG or a WebP, then that is their type; anything else is no picture', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
    expect(sniffPictureType(png)).toBe('image/png');
    expect(sniffPictureType(jpeg)).toBe('image/jpeg');
    expect(sniffPictureType(webp)).toBe('image/webp');
    expect(sniffPictureType(Buffer.from('GIF89a......'))).toBeNull();
    expect(sniffPictureType(Buffer.from('RIFF....WAVE'))).toBeNull();
    expect(sniffPictureType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffPictureType(png.subarray(0, 7))).toBeNull();
  });

  it('when the declared type is no picture, then 415 before the body is read', () => {
    expect(() => checkDeclaredType('image/jpeg')).not.toThrow();
    expect(() => checkDeclaredType('application/octet-stream')).not.toThrow();
    expect(() => checkDeclaredType('image/svg+xml')).toThrow(
      expect.objectContaining({ status: 415, message: expect.stringContaining('image/svg+xml') }),
    );
    expect(() => checkDeclaredType(undefined)).toThrow(expect.objectContaining({ status: 415 }));
  });

  it('when ids are made, then each is 24 URL-safe characters and none repeats', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newUploadId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});
