import { describe, expect, it } from 'vitest';
import { captureLogger, startApi, startSandbox } from './kit/index.js';

/** `npm start`'s banner must be the first thing a person reads: Nest's boot chatter is debug-level. */
describe('logging: framework boot chatter', () => {
  const boot = async (level: string) => {
    const logs = captureLogger('api', level);
    const sandbox = await startSandbox();
    const api = await startApi(sandbox.url, {}, logs.logger);
    await api.close();
    await sandbox.close();
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
