import { type Attributes, type AttributeValue, type Context, SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { isSecret, REDACTED, redactText } from './redact.js';

/**
 * What a span may hold, applied to every span as it ends, before anything exports it. The
 * instrumentations record no headers, bodies or SQL parameters (none is configured to), but they do
 * record URLs, error messages and who called us, so:
 *
 * - every query parameter's value is replaced (a callback's `state` and `code`, a bank page's token, a
 *   user reference a list was filtered by): the names stay, enough to read the request;
 * - the caller's address on the spans of requests we serve is dropped: it may be a person's browser;
 * - every string (the span's name, SQL text, exception messages and stacks, status messages) is scrubbed like a log
 *   message (bearer and basic credentials, `mk_`/`us_`/`whsec_` keys, JWT-shaped tokens), and an
 *   attribute whose name says it holds a secret is redacted whole, as in the logs.
 */
export function scrubSpan(span: ReadableSpan): void {
  const server = span.kind === SpanKind.SERVER;
  // Names are ours or an instrumentation's, from routes and statement names, but a name is text too.
  const name = scrubText(span.name);
  if (name !== span.name) (span as { name: string }).name = name;
  scrubAttributes(span.attributes, server);
  for (const event of span.events) if (event.attributes) scrubAttributes(event.attributes, false);
  if (span.status.message) (span.status as { message?: string }).message = redactText(span.status.message);
}

/** Attributes naming who called a server span: the address (and port) of a browser, for the callback. */
const CALLER_ADDRESS = new Set([
  'client.address',
  'client.port',
  'network.peer.address',
  'network.peer.port',
  'net.peer.ip',
  'net.peer.port',
  'net.sock.peer.addr',
  'net.sock.peer.port',
  'http.client_ip',
]);

/** Attributes that hold a URL, a target or a query string. */
const URL_ATTRIBUTE = /^(url\.|http\.(url|target)$)/;

function scrubAttributes(attributes: Attributes, server: boolean): void {
  const writable = attributes as Record<string, AttributeValue | undefined>;
  for (const key of Object.keys(writable)) {
    const value = writable[key];
    if (server && CALLER_ADDRESS.has(key)) delete writable[key];
    else if (value === undefined || typeof value === 'number' || typeof value === 'boolean') continue;
    else if (secretKey(key)) writable[key] = REDACTED;
    else if (typeof value === 'string') writable[key] = scrubValue(key, value);
    else writable[key] = value.map((v) => (typeof v === 'string' ? scrubValue(key, v) : v)) as AttributeValue;
  }
}

/** Attribute names come from a small fixed set: each is judged once. */
const secretKeys = new Map<string, boolean>();
function secretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    // The last segment names the value (`http.request.header.authorization`), like a log key's words.
    secret = isSecret(key.slice(key.lastIndexOf('.') + 1), 'x');
    if (secretKeys.size < 10_000) secretKeys.set(key, secret);
  }
  return secret;
}

function scrubValue(key: string, value: string): string {
  if (!URL_ATTRIBUTE.test(key)) return scrubText(value);
  // A URL's query is left with names only; its path is scanned like any text.
  const queryOnly = key === 'url.query';
  const start = queryOnly ? 0 : value.indexOf('?');
  if (start < 0) return scrubText(value);
  return scrubText(value.slice(0, start)) + withoutQueryValues(value.slice(start), true);
}

/** `?a=1&b=2` → `?a=[REDACTED]&b=[REDACTED]`; `queryOnly`: the value is the query itself, without `?`. */
export function withoutQueryValues(url: string, queryOnly = false): string {
  const start = queryOnly ? 0 : url.indexOf('?');
  if (start < 0) return url;
  const query = url.slice(start).replace(/(^|[?&;])([^=&;#]*)=[^&;#]*/g, `$1$2=${REDACTED}`);
  return url.slice(0, start) + query;
}

/**
 * Only text that could hold one of redactText's shapes is scanned (most values are words and numbers),
 * and the longer texts that recur (SQL statements, user agents) are scanned once each.
 */
const MAY_HOLD_SECRET = /[\s_=]|eyJ/;
const scanned = new Map<string, string>();
function scrubText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let scrubbed = scanned.get(text);
  if (scrubbed === undefined) {
    scrubbed = redactText(text);
    if (scanned.size >= 1_000) scanned.clear();
    if (text.length <= 4_096) scanned.set(text, scrubbed);
  }
  return scrubbed;
}

/** Wraps the exporting processor: every span is scrubbed before the exporter's buffer holds it. */
export class ScrubbingSpanProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    scrubSpan(span);
    this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}
