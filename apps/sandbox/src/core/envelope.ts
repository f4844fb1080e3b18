import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isUuid } from '#libs/ids';

/** The upstream's success envelope (upstream spec §2.1): `meta.tracingId` always; lists add `count` and paging. */
export interface Envelope<T> {
  meta: { tracingId: string; count?: number; pagination?: unknown; [key: string]: unknown };
  data: T;
  links?: Record<string, string>;
}

export function tracingIdOf(request: FastifyRequest): string {
  return String(request.id).replace(/-/g, '');
}

/** The webhook routes' `metadata.tracingId` is a UUID in the upstream's OpenAPI, unlike the 32 hex digits above. */
export function webhookTracingIdOf(request: FastifyRequest): string {
  const id = String(request.id);
  return isUuid(id) ? id.toLowerCase() : randomUUID();
}

export function envelope<T>(
  request: FastifyRequest,
  data: T,
  extra: { meta?: Record<string, unknown>; links?: Record<string, string> } = {},
): Envelope<T> {
  const meta: Envelope<T>['meta'] = { tracingId: tracingIdOf(request), ...extra.meta };
  if (Array.isArray(data) && meta.count === undefined) meta.count = data.length;
  return extra.links ? { meta, data, links: extra.links } : { meta, data };
}
