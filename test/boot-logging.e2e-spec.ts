import { describe, expect, it } from 'vitest';
import { captureLogger, startStack } from './kit/index.js';

/** `npm start`'s banner must be the first thing a person reads: Nest's boot chatter is debug-level. */
describe('logging: framework boot chatter', () => {
  const boot = async (level: string) => {
    const logs = captureLogger('api', level);
    // The level is the logger's: the apps' own setting stays as the kit sets it.
    const stack = await startStack({ overrides: { LOG_LEVEL: 'silent' }, loggers: { api: logs.logger } });
    await stack.close();
    return logs.lines.map((line) => JSON.parse(line) as { level: string; msg: string; context?: string });
  };

  it('logs no module or route-mapping lines at info', async () => {
    const lines = await boot('info');
    expect(
      lines.filter((l) => /Mapped \{|dependencies initialized|successfully started/.test(l.msg)),
    ).toEqual([]);
  });

  it('still has them at debug, for whoever needs them', async () => {
    const mapped = (await boot('debug')).filter((l) => l.msg.startsWith('Mapped {'));
    expect(mapped.length).toBeGreaterThan(30);
    expect(mapped.every((l) => l.level === 'debug')).toBe(true);
  });
});
