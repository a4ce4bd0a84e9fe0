import { blockedReason, isPublicAddress, parseIPv6 } from '../../src';

describe('address classification', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '169.254.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.2.1',
    '::1',
    '::',
    '0:0:0:0:0:0:0:1',
    'fe80::1',
    'febf:ffff::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:10.1.2.3',
    '0:0:0:0:0:ffff:c0a8:0101',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '2002:7f00:0001::1',
    '2001:db8::1',
  ])('when the address is %s, then it is refused', (address) => {
    expect(blockedReason(address)).not.toBeNull();
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:0808:0808::1',
  ])('when the address is %s, then it is public', (address) => {
    expect(blockedReason(address)).toBeNull();
  });

  it('when the input is not an IP address, then it is refused', () => {
    expect(blockedReason('example.com')).toBe('not an IP address');
    expect(blockedReason('999.1.1.1')).toBe('not an IP address');
    expect(blockedReason('fe80::1%eth0')).toBe('not an IP address');
  });

  it('when IPv6 is spelled several ways, then it parses to the same bytes', () => {
    const expected = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1];
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual(expected);
    expect(parseIPv6('::ffff:7f00:1')).toEqual(expected);
    expect(parseIPv6('[0:0:0:0:0:ffff:7f00:0001]')).toEqual(expected);
    expect(parseIPv6('1::')).toEqual([0, 1, ...new Array<number>(14).fill(0)]);
  });
});
