import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { TenantCaller } from '#libs/context';
import { UserEventsService } from '#libs/domain/events';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type EventWakeup, EventWakeups } from '#libs/redis';

interface Stream {
  /** Who opened it: every page read later acts for them, as the first read did. */
  caller: TenantCaller;
  userId: string;
  /** The last stream position sent. */
  position: string;
  raw: ServerResponse;
  pumping: boolean;
  again: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout;
}

/** How long a browser waits before it reconnects (the SSE `retry:` field). */
const RECONNECT_MS = 2_000;

/**
 * This process's open event streams. New events are read from the outbox in Postgres (what `Last-Event-ID`
 * resumes from), so every api process serves any user; Redis pub/sub only says when to look, and every
 * heartbeat looks too, so a lost wake-up costs seconds, never an event.
 */
@Injectable()
export class UserEventStreams implements OnModuleInit, OnModuleDestroy {
  private readonly byUser = new Map<string, Set<Stream>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly events: UserEventsService,
    private readonly wakeups: EventWakeups,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.wakeups.subscribe((wakeup) => this.wake(wakeup));
  }

  /** Shutdown: every stream ends cleanly; browsers reconnect (to another process) with their Last-Event-ID. */
  onModuleDestroy(): void {
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
    start: Omit<Stream, 'raw' | 'pumping' | 'again' | 'closed' | 'heartbeat'>,
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
      }, this.config.events.sseHeartbeatSeconds * 1000),
    };
    stream.heartbeat.unref();
    const set = this.byUser.get(stream.userId) ?? new Set<Stream>();
    set.add(stream);
    this.byUser.set(stream.userId, set);
    raw.on('close', () => this.close(stream, false));
    void this.pump(stream);
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
          const page = await this.events.after(stream.caller, stream.userId, stream.position);
          if (stream.closed || page.length === 0) break;
          let chunk = '';
          for (const { streamSeq, event } of page) {
            chunk += `id: ${streamSeq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
          }
          stream.position = page[page.length - 1].streamSeq;
          if (!stream.raw.write(chunk)) {
            // A client gone while the socket is full never drains: closing ends the wait too.
            await new Promise((resolve) => {
              stream.raw.once('drain', resolve);
              stream.raw.once('close', resolve);
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

  private close(stream: Stream, end: boolean): void {
    if (stream.closed) return;
    stream.closed = true;
    clearInterval(stream.heartbeat);
    const set = this.byUser.get(stream.userId);
    set?.delete(stream);
    if (set?.size === 0) this.byUser.delete(stream.userId);
    if (end) stream.raw.end();
  }
}
