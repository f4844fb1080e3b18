import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { activeUnits, enabledUnits, INSTALLED_RECORD, packageUnits } from '../scripts/debian-packages.mjs';

/**
 * `npm test` installs Debian packages for a tool (promtool) or for servers it runs on private ports
 * (pgbouncer, redis-sentinel); Debian would enable and start each one's own server on its standard port.
 * Whatever this checkout's set-up installed must leave none of them enabled at boot or running.
 */
describe('the Debian packages the set-up installed', () => {
  const installed: string[] = existsSync(INSTALLED_RECORD)
    ? (JSON.parse(readFileSync(INSTALLED_RECORD, 'utf8')) as string[])
    : [];

  it('left no service of theirs enabled or running', () => {
    const left = installed.flatMap((pkg) => {
      const units = packageUnits(pkg);
      return [...enabledUnits(units), ...activeUnits(units)].map((unit) => `${pkg}: ${unit}`);
    });
    expect(left).toEqual([]);
  });
});
