import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { TenantCaller } from '#libs/context';
import { UserEventsService } from '#libs/domain/events';
import { type DomainError, mapError } from '#libs/http';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CredentialRevocations, type EventWakeup, EventWakeups, type Revocation } from '#libs/redis';

interface Stream {
  /** Who opened it: every page read later acts for them, as the first read did. */
  caller: TenantCaller;
  userId: string;
  /** The last stream position sent. */
  position: string;
  /** The request that opened it: the tracingId of the error it may end with. */
  requestId: string;
  raw: ServerResponse;
  pumping: boolean;
  again: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout;
  /** Reads once more when the credential's validity ends, so the stream ends then. */
  expiry: NodeJS.Timeout | undefined;
}

/** Longest a timer may wait in Node (about 24.8 days); a later expiry is checked by the heartbeats first. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a browser waits before it reconnects (the SSE `retry:` field). */
const RECONNECT_MS = 2_000;

/**
 * This process's open event streams. New events are read from the outbox in Postgres (what `Last-Event-ID`
 * resumes from), so every api process serves any user; Redis pub/sub only says when to look, and every
 * heartbeat looks too, so a lost wake-up costs seconds, never an event.
 *
 * Every read is authorised again (`UserEventsService.after`): a stream whose key was revoked, whose
 * session expired, whose user was erased or whose merchant was disabled ends with an SSE `error` event
 * (the error envelope its next request would get) and closes, never sending an event after. A
 * revocation broadcast by any process makes the streams it concerns read at once; the heartbeat's read
 * bounds a broadcast lost while Redis was away, and a timer the credential's expiry.
 */
@Injectable()
export class UserEventStreams implements OnModuleInit, OnModuleDestroy {
  private readonly byUser = new Map<string, Set<Stream>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly events: UserEventsService,
    private readonly wakeups: EventWakeups,
    private readonly revocations: CredentialRevocations,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.wakeups.subscribe((wakeup) => this.wake(wakeup));
    await this.revocations.subscribe((revocation) => this.recheck(revocation));
  }

  /** Shutdown: every stream ends cleanly; browsers reconnect (to another process) with their Last-Event-ID. */
  onModuleDestroy(): void {
    this.endAll();
  }

  /** Ends every open stream (at shutdown, before the server waits for its connections to end). */
  endAll(): void {
    for (const streams of this.byUser.values()) for (const stream of streams) this.close(stream, true);
  }

  get size(): number {
    let n = 0;
    for (const streams of this.byUser.values()) n += streams.size;
    return n;
  }

  /** Starts streaming to `raw` (already hijacked from Fastify, headers not yet sent). */
  open(
    raw: ServerResponse,
    headers: Record<string, string>,
    start: Omit<Stream, 'raw' | 'pumping' | 'again' | 'closed' | 'heartbeat' | 'expiry'>,
  ): void {
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and friends would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    raw.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
    const stream: Stream = {
      ...start,
      raw,
      pumping: false,
      again: false,
      closed: false,
      heartbeat: setInterval(() => {
        raw.write(': heartbeat\n\n');
        void this.pump(stream);
      }, this.config.tuning.sseHeartbeatSeconds * 1000),
      expiry: undefined,
    };
    stream.heartbeat.unref();
    this.armExpiry(stream);
    const set = this.byUser.get(stream.userId) ?? new Set<Stream>();
    set.add(stream);
    this.byUser.set(stream.userId, set);
    raw.on('close', () => this.close(stream, false));
    void this.pump(stream);
  }

  /**
   * Reads once more when the caller's credential expires, so the stream ends then. Timers run on the
   * event loop's clock, which may trail the wall clock the read compares with: one that fires early is
   * set again for what is left.
   */
  private armExpiry(stream: Stream): void {
    const { validUntil } = stream.caller;
    if (validUntil === undefined || stream.closed) return;
    const left = validUntil - Date.now();
    if (left >= MAX_TIMER_MS) return;
    stream.expiry = setTimeout(
      () => {
        if (Date.now() < validUntil) this.armExpiry(stream);
        else void this.pump(stream);
      },
      Math.max(0, left),
    );
    stream.expiry.unref();
  }

  /** The streams a revocation may concern read again now: the database says whether they end. */
  private recheck(revocation: Revocation): void {
    for (const streams of this.byUser.values()) {
      for (const stream of streams) {
        const { caller } = stream;
        const concerned =
          (revocation.kind === 'merchant' && caller.merchantId === revocation.id) ||
          (revocation.kind === 'user' && stream.userId === revocation.id) ||
          (revocation.kind === 'apiKey' && caller.kind === 'merchant' && caller.apiKeyId === revocation.id) ||
          (revocation.kind === 'consoleSession' &&
            caller.kind === 'merchant' &&
            caller.consoleSessionId === revocation.id);
        if (concerned) void this.pump(stream);
      }
    }
  }

  private wake(wakeup: EventWakeup): void {
    for (const [userId, position] of Object.entries(wakeup)) {
      for (const stream of this.byUser.get(userId) ?? []) {
        if (BigInt(position) > BigInt(stream.position)) void this.pump(stream);
      }
    }
  }

  /** Sends what follows the stream's position; one pump per stream at a time, repeated if woken meanwhile. */
  private async pump(stream: Stream): Promise<void> {
    if (stream.closed) return;
    if (stream.pumping) {
      stream.again = true;
      return;
    }
    stream.pumping = true;
    try {
      do {
        stream.again = false;
        for (;;) {
          const { events: page, refusal } = await this.events.after(
            stream.caller,
            stream.userId,
            stream.position,
          );
          if (refusal) {
            this.refuse(stream, refusal);
            return;
          }
          if (stream.closed || page.length === 0) break;
          let chunk = '';
          for (const { streamSeq, event } of page) {
            chunk += `id: ${streamSeq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
          }
          stream.position = page[page.length - 1].streamSeq;
          if (!stream.raw.write(chunk)) {
            // A client gone while the socket is full never drains: closing ends the wait too. Whichever
            // comes, the other's listener goes, so a slow reader does not gather one per full socket.
            await new Promise<void>((resolve) => {
              const done = () => {
                stream.raw.off('drain', done);
                stream.raw.off('close', done);
                resolve();
              };
              stream.raw.once('drain', done);
              stream.raw.once('close', done);
            });
          }
          if (page.length < this.events.pageSize) break;
        }
      } while (stream.again && !stream.closed);
    } catch (err) {
      this.logger.warn(
        { err, userId: stream.userId },
        'event stream: could not read events; next heartbeat retries',
      );
    } finally {
      stream.pumping = false;
    }
  }

  /** Ends a stream its caller may no longer read: the error its next request would get, then close. */
  private refuse(stream: Stream, refusal: DomainError): void {
    if (stream.closed) return;
    const { body } = mapError(refusal, stream.requestId);
    stream.raw.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    this.logger.info(
      { userId: stream.userId, code: refusal.code, reason: refusal.message },
      'event stream ended: its caller may no longer read it',
    );
    this.close(stream, true);
  }

  private close(stream: Stream, end: boolean): void {
    if (stream.closed) return;
    stream.closed = true;
    clearInterval(stream.heartbeat);
    clearTimeout(stream.expiry);
    const set = this.byUser.get(stream.userId);
    set?.delete(stream);
    if (set?.size === 0) this.byUser.delete(stream.userId);
    if (end) stream.raw.end();
  }
}
