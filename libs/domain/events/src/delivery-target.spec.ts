import { describe, expect, it } from 'vitest';
import { isPrivateAddress, refusedLiteralAddress } from './delivery-target.js';

describe('delivery targets: what production refuses to connect to', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    '::7f00:1', // IPv4-compatible 127.0.0.1
    '::ffff:10.0.0.1', // IPv4-mapped
    'fe80::1',
    'fd00::1',
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '64:ff9b:1::1',
    '2002:a9fe:a9fe::1', // 6to4
    '2001:0:4136:e378::1', // Teredo
  ])('refuses %s', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  it('refuses literal private hosts and local names in URLs, unless allowed', () => {
    expect(refusedLiteralAddress(new URL('http://[64:ff9b::a9fe:a9fe]/'), false)).toContain('private');
    expect(refusedLiteralAddress(new URL('http://localhost:8080/'), false)).toContain('local name');
    expect(refusedLiteralAddress(new URL('https://merchant.example/hooks'), false)).toBeNull();
    expect(refusedLiteralAddress(new URL('http://127.0.0.1/'), true)).toBeNull();
  });
});
