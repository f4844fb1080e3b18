import { webhookHeaders } from '#libs/crypto';
import type { DeliveryAttempt } from './webhook-delivery.types.js';

const USER_AGENT = 'aggregation-sandbox-webhooks/1.0';

function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

export interface SignedPost {
  url: string;
  eventId: string;
  body: string;
  /** None: a notification subscription, sent unsigned. */
  secrets: string[];
  timestampOffsetSeconds: number;
  attempt: number;
  startedAt: string;
  timeoutMs: number;
}

/**
 * One POST of a delivery, signed with Standard Webhooks headers, within its timeout; never throws: the
 * attempt it returns records what came back or what went wrong. Its abort controller sits in `inflight`
 * while it runs, so a reset can abort it.
 */
export async function postSigned(
  post: SignedPost,
  inflight: Set<AbortController>,
): Promise<{ ok: boolean; statusCode?: number; attempt: DeliveryAttempt }> {
  const startedMs = Date.now();
  // The signature's timestamp is transport time, the wall clock, as a real sender's would be: moving the
  // sandbox clock (to expire consents) must not make every receiver refuse its webhooks as future-dated.
  const timestampSeconds = Math.max(0, Math.floor(Date.now() / 1000) + post.timestampOffsetSeconds);
  const { eventId: id, body, secrets } = post;
  const headers: Record<string, string> =
    secrets.length > 0
      ? { ...webhookHeaders({ id, timestampSeconds, body, secrets }) }
      : { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds) };
  const attempt: DeliveryAttempt = {
    attempt: post.attempt,
    url: post.url,
    startedAt: post.startedAt,
    webhookTimestamp: timestampSeconds,
    durationMs: 0,
  };
  const controller = new AbortController();
  inflight.add(controller);
  const timeout = setTimeout(() => controller.abort(), post.timeoutMs);
  try {
    const response = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
      body,
      redirect: 'manual',
      signal: controller.signal,
    });
    // Drain the answer so the connection is released (bounded by the same timeout).
    await response.arrayBuffer().catch(() => undefined);
    attempt.statusCode = response.status;
    return { ok: response.status >= 200 && response.status < 300, statusCode: response.status, attempt };
  } catch (error) {
    attempt.error = controller.signal.aborted ? `timeout after ${post.timeoutMs} ms` : describeError(error);
    return { ok: false, attempt };
  } finally {
    clearTimeout(timeout);
    inflight.delete(controller);
    attempt.durationMs = Date.now() - startedMs;
  }
}
