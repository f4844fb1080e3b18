import { describe, expect, it } from 'vitest';
import { assertNotCrossSite, assertSameOrigin, consoleCookie, consoleSetCookie } from './console-cookie.js';

describe('the console cookie', () => {
  it('is Secure when the api is served over https, and read back among other cookies', () => {
    expect(consoleSetCookie('t', 60, 'https://bff.example')).toBe(
      'bff_console=t; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure',
    );
    expect(consoleSetCookie('t', 60, 'http://localhost:8080')).not.toContain('Secure');
    expect(consoleCookie({ cookie: 'a=1; bff_console=abc.def; b=2' })).toBe('abc.def');
    expect(consoleCookie({ cookie: 'bff_console=' })).toBeUndefined();
    expect(consoleCookie({})).toBeUndefined();
  });

  it('lets a change through only from the api origin; reads from anywhere SameSite lets the cookie come', () => {
    const url = 'https://bff.example/';
    expect(() => assertSameOrigin('GET', {}, url)).not.toThrow();
    expect(() => assertSameOrigin('POST', { origin: 'https://bff.example' }, url)).not.toThrow();
    expect(() => assertSameOrigin('DELETE', { 'sec-fetch-site': 'same-origin' }, url)).not.toThrow();
    expect(() => assertSameOrigin('POST', { origin: 'https://bff.example.evil' }, url)).toThrow(/own origin/);
    expect(() => assertSameOrigin('PATCH', { 'sec-fetch-site': 'same-site' }, url)).toThrow(/own origin/);
    expect(() => assertSameOrigin('POST', {}, url)).toThrow(/own origin/);
  });

  it('lets a sign-in come from no browser at all, but not from another site', () => {
    const url = 'https://bff.example';
    expect(() => assertNotCrossSite({}, url)).not.toThrow();
    expect(() => assertNotCrossSite({ origin: 'https://bff.example' }, url)).not.toThrow();
    expect(() => assertNotCrossSite({ origin: 'https://other.example' }, url)).toThrow(/own origin/);
    expect(() => assertNotCrossSite({ 'sec-fetch-site': 'cross-site' }, url)).toThrow(/own origin/);
  });
});
