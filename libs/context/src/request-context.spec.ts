import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { assertActsFor, type TenantCaller } from './caller.js';
import { currentContext, currentRequestId, runInContext } from './request-context.js';

describe('request context', () => {
  it('is absent outside any request or job', () => {
    expect(currentContext()).toBeUndefined();
    expect(currentRequestId()).toBeUndefined();
  });

  it('follows each of many interleaved async flows without leaking into the others', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `req-${i}`);
    const seen = await Promise.all(
      ids.map((requestId, i) =>
        runInContext({ requestId }, async () => {
          for (let step = 0; step < (i % 7) + 1; step += 1) await tick();
          const later = await new Promise<string | undefined>((resolve) =>
            setTimeout(() => resolve(currentRequestId()), i % 3),
          );
          return [currentRequestId(), later];
        }),
      ),
    );
    expect(seen).toEqual(ids.map((id) => [id, id]));
    expect(currentRequestId()).toBeUndefined();
  });

  it('lets authentication add the caller to the running context', async () => {
    const caller: TenantCaller = { kind: 'merchant', merchantId: 'm', apiKeyId: 'k' };
    await runInContext({ requestId: 'r' }, async () => {
      currentContext()!.caller = caller;
      await tick();
      expect(currentContext()).toEqual({ requestId: 'r', caller });
    });
  });
});

describe('assertActsFor', () => {
  it('lets a merchant act for any user and a session only for its own', () => {
    expect(() => assertActsFor({ kind: 'merchant', merchantId: 'm', apiKeyId: 'k' }, 'u1')).not.toThrow();
    const session: TenantCaller = { kind: 'user-session', merchantId: 'm', userId: 'u1' };
    expect(() => assertActsFor(session, 'u1')).not.toThrow();
    expect(() => assertActsFor(session, 'u2')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});
