import { isCrossOrigin, isLocalHost, isStateChanging } from '../../src/domain/account';

describe('dashboard session rules', () => {
  it('when the host is localhost, then the cookie may go without Secure; anywhere else it may not', () => {
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080', 'app.localhost']) {
      expect({ host, local: isLocalHost(host) }).toEqual({ host, local: true });
    }
    for (const host of ['svc.example.com', 'localhost.example.com', '10.0.0.1:8080', undefined]) {
      expect({ host, local: isLocalHost(host) }).toEqual({ host, local: false });
    }
  });

  it('when a browser names another origin (or an opaque one), then the request is cross-site', () => {
    expect(isCrossOrigin('https://evil.example', 'svc.example.com')).toBe(true);
    expect(isCrossOrigin('null', 'svc.example.com')).toBe(true);
    expect(isCrossOrigin('http://localhost:8080', '127.0.0.1:8080')).toBe(true);
    expect(isCrossOrigin('not a url', 'svc.example.com')).toBe(true);
    expect(isCrossOrigin('https://svc.example.com', 'svc.example.com')).toBe(false);
    // No Origin header (curl, older browsers): the CSRF token still has to match.
    expect(isCrossOrigin(undefined, 'svc.example.com')).toBe(false);
  });

  it('when the method reads, then no CSRF token is needed; every other method needs one', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'get'].map(isStateChanging)).toEqual([false, false, false, false]);
    expect(['POST', 'PATCH', 'PUT', 'DELETE'].map(isStateChanging)).toEqual([true, true, true, true]);
  });
});
