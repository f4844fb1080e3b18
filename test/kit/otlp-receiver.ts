import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** OTLP's span kinds, as numbers on the wire. */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};

interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
}

/** One span as received, with its service and flattened attributes. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  /** Undefined for a trace's root (or a span whose parent is remote and not decoded here). */
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const valueOf = (value: AnyValue): unknown =>
  value.stringValue ??
  value.boolValue ??
  value.doubleValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.arrayValue?.values?.map(valueOf);

/**
 * A small OTLP/HTTP trace receiver: accepts POST /v1/traces in either encoding, decodes `http/json`
 * requests into spans, and keeps every body as received (protobuf ones undecoded) for searching.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body, with its content type. */
  readonly bodies: { contentType: string; body: Buffer }[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const contentType = request.headers['content-type'] ?? '';
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        this.bodies.push({ contentType, body });
        if (contentType.startsWith('application/json')) this.decode(body.toString('utf8'));
        // An empty ExportTraceServiceResponse: full success, in the encoding asked for.
        if (contentType.startsWith('application/json')) {
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private decode(text: string): void {
    const request = JSON.parse(text) as {
      resourceSpans?: {
        resource?: { attributes?: { key: string; value: AnyValue }[] };
        scopeSpans?: { scope?: { name?: string }; spans?: WireSpan[] }[];
      }[];
    };
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value
        .stringValue;
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service: service ?? '?',
            scope: scopeSpans.scope?.name ?? '?',
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          });
        }
      }
    }
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  /** Every body received, as text (protobuf keeps its strings as UTF-8, so they are searchable too). */
  allText(): string {
    return this.bodies.map((b) => b.body.toString('latin1')).join('\n');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The chain of spans from `span` up to the root of what was decoded, nearest first. */
export function ancestors(span: ReceivedSpan, all: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(all.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (let at = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; at;) {
    chain.push(at);
    at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
  }
  return chain;
}
