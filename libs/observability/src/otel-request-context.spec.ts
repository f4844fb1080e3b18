import { setImmediate as tick } from 'node:timers/promises';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { carryRequestContextIn, currentContext, currentRequestId, runInContext } from '#libs/context';
import { assertProperty } from '#libs/testing';
import { inRequestTrace, keepRequestTrace, OTEL_REQUEST_CONTEXT } from './trace-context.js';

/**
 * With tracing on, the request context rides in the OpenTelemetry context (one AsyncLocalStorage for
 * both). What must hold is what held with a storage of its own: each flow sees its own request context
 * after any await, timer or callback, never another's, and entering one keeps the trace that runs.
 */
const tracer = trace.getTracer('otel-request-context.spec');

beforeAll(() => {
  // The SDK as tracing-sdk.ts starts it: AsyncLocalStorage context manager, registered globally.
  new NodeTracerProvider().register();
  carryRequestContextIn(OTEL_REQUEST_CONTEXT);
});

type Step = 'tick' | 'timer' | 'microtask' | 'child-span' | 'nested-context';
const step = fc.constantFrom<Step>('tick', 'timer', 'microtask', 'child-span', 'nested-context');

describe('the request context carried in the OpenTelemetry context', () => {
  it('follows each of many interleaved flows, with its own span, across every kind of wait', async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.array(step, { maxLength: 6 }), { minLength: 1, maxLength: 40 }),
        async (flows) => {
          const seen = await Promise.all(
            flows.map((steps, i) =>
              tracer.startActiveSpan(`flow-${i}`, (span) =>
                runInContext({ requestId: `req-${i}` }, async () => {
                  const wrong: string[] = [];
                  const check = (where: string, requestId = `req-${i}`) => {
                    if (currentRequestId() !== requestId) wrong.push(`${where}: ${currentRequestId()}`);
                    const active = trace.getActiveSpan()?.spanContext().traceId;
                    if (active !== span.spanContext().traceId) wrong.push(`${where}: another trace`);
                  };
                  for (const [n, kind] of steps.entries()) {
                    if (kind === 'tick') await tick();
                    else if (kind === 'microtask') await Promise.resolve();
                    else if (kind === 'timer') await new Promise((resolve) => setTimeout(resolve, n % 3));
                    else if (kind === 'child-span')
                      await tracer.startActiveSpan('child', async (child) => {
                        await tick();
                        check('child span');
                        child.end();
                      });
                    else
                      await runInContext({ requestId: `req-${i}.${n}` }, async () => {
                        await tick();
                        check('nested context', `req-${i}.${n}`);
                      });
                    check(`after ${kind}`);
                  }
                  span.end();
                  return wrong;
                }),
              ),
            ),
          );
          expect(seen.flat()).toEqual([]);
          expect(currentContext()).toBeUndefined();
        },
      ),
      30,
    );
  });

  it('keeps the request trace entered again after a body read, and the request context entered on top', async () => {
    const request = {};
    const span = tracer.startSpan('request');
    keepRequestTrace(request, span);
    // Where a body parser's callback runs: outside the request's trace and context.
    const [traceId, requestId, caller] = await new Promise<[string?, string?, string?]>((resolve) =>
      context.with(ROOT_CONTEXT, () =>
        inRequestTrace(
          request,
          () =>
            void runInContext({ requestId: 'r-1' }, async () => {
              await tick();
              currentContext()!.caller = { kind: 'operator' };
              await tick();
              resolve([
                trace.getActiveSpan()?.spanContext().traceId,
                currentRequestId(),
                currentContext()?.caller?.kind,
              ]);
            }),
        ),
      ),
    );
    span.end();
    expect({ traceId, requestId, caller }).toEqual({
      traceId: span.spanContext().traceId,
      requestId: 'r-1',
      caller: 'operator',
    });
  });
});
