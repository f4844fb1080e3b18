import { describe, expect, it } from 'vitest';
import { isBigintKey } from './bigint-key.js';

describe('isBigintKey', () => {
  it('takes what a Postgres bigint holds, and nothing past it', () => {
    for (const key of ['0', '1', '999', '1000', '9223372036854775807'])
      expect(isBigintKey(key), key).toBe(true);
    for (const key of [
      '',
      '-1',
      '1.5',
      '1e3',
      ' 1',
      '9223372036854775808',
      '9999999999999999999',
      '12345678901234567890',
    ])
      expect(isBigintKey(key), key).toBe(false);
  });
});
