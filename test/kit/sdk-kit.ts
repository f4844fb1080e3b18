import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of the api that misbehaves on cue, for the merchant SDK's tests: it answers a
 * request itself (a 429 or 503 with Retry-After), forwards it and then answers something else (an answer
 * lost on the way back), or forwards a stream and cuts the connection after some messages.
 */

export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type ProxyPlan =
  /** Answer this, without forwarding. */
  | { answer: CannedAnswer }
  /** Forward, then drop the api's answer and send this one instead. */
  | { forwardThenAnswer: CannedAnswer }
  /** Forward a stream, and cut the client's connection once this many messages have passed. */
  | { cutAfterMessages: number };

/** What the proxy did with one request: its plan, and the api's status when it was forwarded. */
export interface ProxyRecord extends ProxiedRequest {
  plan: ProxyPlan | 'forward';
  upstreamStatus?: number;
  upstreamHeaders?: Headers;
}

/** Hop-by-hop and length headers: the proxy's own connection sets them. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export class FlakyProxy {
  readonly records: ProxyRecord[] = [];
  url = '';
  private server!: Server;

  /** `plan` decides per request (undefined: forward as is); it sees the request and its index. */
  constructor(
    private readonly target: string,
    private readonly plan: (request: ProxiedRequest, index: number) => ProxyPlan | undefined = () =>
      undefined,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const proxied: ProxiedRequest = {
          method: request.method ?? 'GET',
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const record: ProxyRecord = {
          ...proxied,
          plan: this.plan(proxied, this.records.length) ?? 'forward',
        };
        this.records.push(record);
        this.handle(record, response).catch(() => response.destroy());
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async handle(record: ProxyRecord, response: ServerResponse): Promise<void> {
    const { plan } = record;
    if (plan !== 'forward' && 'answer' in plan) return answer(response, plan.answer);
    const upstream = await fetch(`${this.target}${record.path}`, {
      method: record.method,
      headers: Object.fromEntries(
        Object.entries(record.headers).filter(
          (entry): entry is [string, string] => !HOP.has(entry[0]) && typeof entry[1] === 'string',
        ),
      ),
      body: ['GET', 'HEAD'].includes(record.method) ? undefined : record.body,
      redirect: 'manual',
    });
    record.upstreamStatus = upstream.status;
    record.upstreamHeaders = upstream.headers;
    if (plan !== 'forward' && 'forwardThenAnswer' in plan) {
      await upstream.arrayBuffer();
      return answer(response, plan.forwardThenAnswer);
    }
    const headers = Object.fromEntries([...upstream.headers].filter(([name]) => !HOP.has(name)));
    response.writeHead(upstream.status, headers);
    if (!upstream.body) return void response.end();
    const cutAfter = plan !== 'forward' && 'cutAfterMessages' in plan ? plan.cutAfterMessages : Infinity;
    // Messages are counted whole (ended by a blank line) and with data: comments and `retry:` are not.
    // The cut comes right after the last message let through, even inside a chunk.
    const reader = upstream.body.getReader();
    const decoder = new TextDecoder();
    let pending = '';
    let passed = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return void response.end(pending);
      pending += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end + 2);
        pending = pending.slice(end + 2);
        response.write(block);
        if (/^data:/m.test(block)) passed += 1;
        if (passed >= cutAfter) {
          await reader.cancel();
          // Once what was let through is on its way, the connection dies, as a dropped network leaves it.
          await new Promise<void>((resolve) => response.write('', () => resolve()));
          response.socket?.destroy();
          return;
        }
      }
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function answer(response: ServerResponse, canned: CannedAnswer): void {
  response.writeHead(canned.status, { 'content-type': 'application/json', ...canned.headers });
  response.end(canned.body === undefined ? undefined : JSON.stringify(canned.body));
}

/** An error envelope as the api writes one, for canned answers. */
export const envelope = (status: number, code: string, tracingId: string) => ({
  error: { code, status, message: `${code} (from the test proxy)`, tracingId },
});

/**
 * The first lines where two texts differ, with their line numbers: what a failing comparison of two long
 * generated files shows, instead of both files whole.
 */
export function firstDifference(
  [nameA, a]: [string, string],
  [nameB, b]: [string, string],
  context = 3,
): string | undefined {
  if (a === b) return undefined;
  const linesA = a.split('\n');
  const linesB = b.split('\n');
  let line = 0;
  while (line < linesA.length && line < linesB.length && linesA[line] === linesB[line]) line += 1;
  const from = Math.max(0, line - context);
  const show = (lines: string[]) =>
    lines
      .slice(from, line + context)
      .map((text, i) => `${String(from + i + 1).padStart(6)}  ${text}`)
      .join('\n');
  return `first difference at line ${line + 1}\n${nameA}:\n${show(linesA)}\n${nameB}:\n${show(linesB)}`;
}
