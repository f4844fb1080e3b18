import { register } from 'node:module';
import type { Tracing, TracingOptions } from './tracing.types.js';

export type { Tracing, TracingOptions };

const OFF: Tracing = { shutdown: () => Promise.resolve() };

/**
 * The packages whose imports from ES modules must be intercepted for their instrumentation to patch them:
 * ioredis (imported by ours and by BullMQ's ES build) is invisible otherwise, and pg is listed so that an
 * ES importer never depends on pg's CommonJS requires. Nothing else is intercepted: undici and Fastify
 * announce themselves on diagnostics channels.
 */
const INTERCEPTED = ['ioredis', 'pg'];

/**
 * Starts OpenTelemetry tracing for one app, when the configuration turns it on; otherwise does nothing at
 * all (no SDK loaded, nothing patched). Called by each app's main.ts before it imports the app itself:
 * instrumentations patch modules as they load, and every static import of an ES module loads before its
 * first line runs, so the app's module graph must be imported afterwards, dynamically.
 */
export async function startTracing(options: TracingOptions | null, app: string): Promise<Tracing> {
  if (!options) return OFF;
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: INTERCEPTED } });
  const { startTracingSdk } = await import('./tracing-sdk.js');
  return startTracingSdk(options.protocol, options.serviceName ?? app);
}
