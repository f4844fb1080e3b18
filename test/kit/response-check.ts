import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Where two JSON values first differ (`$.data[0].amount: 12 ≠ "12"`), or undefined when they are equal. */
export function firstDifference(expected: unknown, actual: unknown, at = '$'): string | undefined {
  if (Object.is(expected, actual)) return undefined;
  const bothObjects =
    typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null;
  if (!bothObjects || Array.isArray(expected) !== Array.isArray(actual)) {
    return `${at}: ${JSON.stringify(expected)} ≠ ${JSON.stringify(actual)}`;
  }
  const a = expected as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const path = Array.isArray(a) ? `${at}[${key}]` : `${at}.${key}`;
    if (!(key in b)) return `${path}: dropped (not in the document)`;
    if (!(key in a)) return `${path}: added`;
    const difference = firstDifference(a[key], b[key], path);
    if (difference) return difference;
  }
  return undefined;
}

/**
 * Holds every body the api writes from a response schema to the one JSON.stringify would write from the
 * same value: a field the OpenAPI document does not declare (which the schema would drop) or a value it
 * types wrongly (which it would coerce) answers 500 naming the route and the field, and is printed, in
 * whichever test meets it. Installed on every api the test kit starts in-process.
 */
export function checkResponseSchemas(fastify: FastifyInstance): void {
  /** What JSON.stringify wrote of the payload, and for which status (an error sent instead is not compared). */
  const plain = new WeakMap<FastifyRequest, { status: number; json: string }>();
  fastify.addHook('preSerialization', async (request, reply, payload) => {
    const response = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
    if (response?.[String(reply.statusCode)]) {
      plain.set(request, { status: reply.statusCode, json: JSON.stringify(payload) });
    }
    return payload;
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    const expected = plain.get(request);
    // Once: the 500 sent for a difference comes through here too.
    plain.delete(request);
    // A conditional read's hook hands on the bytes it hashed.
    const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
    if (expected?.status !== reply.statusCode || typeof text !== 'string') return payload;
    const difference = firstDifference(JSON.parse(expected.json), JSON.parse(text));
    if (!difference) return payload;
    const problem = `${request.method} ${request.routeOptions.url} ${reply.statusCode}: the response schema changed the body at ${difference}`;
    console.error(problem);
    throw new Error(problem);
  });
}
