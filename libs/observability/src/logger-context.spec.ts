import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInContext } from '#libs/context';
import { createLogger } from './logger.js';
import { accessLogFields } from './redact.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: createLogger({ app: 'test', level: 'info', destination }), lines };
}

describe('logger: the running request or job names every line', () => {
  it('stamps reqId, and the merchant once a tenant caller is known; nothing outside a context', async () => {
    const { logger, lines } = capture();
    logger.info('outside');
    await runInContext({ requestId: 'req-1' }, async () => {
      logger.info('before authentication');
      await Promise.resolve();
      runInContext({ requestId: 'req-2', caller: { kind: 'operator' } }, () => logger.info('operator'));
    });
    runInContext(
      { requestId: 'req-3', caller: { kind: 'user-session', merchantId: 'm-1', userId: 'u-1' } },
      () => logger.child({ component: 'x' }).warn({ reqId: 'explicit' }, 'explicit wins'),
    );
    expect(lines.map(({ msg, reqId, merchantId }) => ({ msg, reqId, merchantId }))).toEqual([
      { msg: 'outside', reqId: undefined, merchantId: undefined },
      { msg: 'before authentication', reqId: 'req-1', merchantId: undefined },
      { msg: 'operator', reqId: 'req-2', merchantId: undefined },
      { msg: 'explicit wins', reqId: 'explicit', merchantId: 'm-1' },
    ]);
  });

  it('writes the access log line redacted field by field, and nothing of its marker', () => {
    const { logger, lines } = capture();
    const line = {
      reqId: 'mk_0123456789abcdef',
      method: 'GET',
      url: '/v1/callbacks/consents?code=abc123&state=xyz&page=2',
      route: '/v1/callbacks/consents',
      status: 302,
      ms: 1.5,
    };
    logger.info(accessLogFields(line), 'request');
    expect(lines[0]).toMatchObject({
      msg: 'request',
      reqId: 'mk_[REDACTED]',
      url: '/v1/callbacks/consents?code=[REDACTED]&state=[REDACTED]&page=2',
      route: line.route,
      status: 302,
      ms: 1.5,
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/abc123|xyz|0123456789/);
  });
});
