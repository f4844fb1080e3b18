import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';

/** The channel the tables' triggers notify (migration `20261123030000_read_cache_notify`). */
export const READ_CACHE_CHANNEL = 'bff_read_cache';

export const READ_CACHE_APPLICATION_NAME = 'bff-read-cache';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;
/** A safety net only: an entry is dropped by its merchant's notification long before this. */
const ENTRY_TTL_MS = 60_000;
/** What an entry costs beyond its value: the map and index entries, the key, the bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

/** Where a merchant's kept data stood when a read began (see `stampOf`). */
export interface ReadStamp {
  readonly epoch: number;
  readonly generation: number;
  readonly subChanges: number;
}

interface Entry {
  value: unknown;
  scope: string;
  /** A finer part of the scope (an account) that a notification of its own can drop alone. */
  sub?: string;
  generation: number;
  epoch: number;
  bytes: number;
  expiresAt: number;
}

/**
 * Results of the page-view reads (a user's accounts, the users page) kept in this process, so a page view
 * costs no database round trip while nothing it shows has changed; beside them, the api's answers made
 * from them, as served (`peek` and `keep`: the api's kept answers, kept-answer.hook.ts).
 *
 * Invalidation is the database's: triggers on `users`, `accounts` and `account_balances` notify the
 * merchant's id on every change, from any process or tool, at commit. This process LISTENs on its own
 * connection and drops the merchant's entries. While that connection is down the cache is bypassed, and a
 * new connection starts from empty (notifications sent meanwhile are lost). A read that raced a
 * notification is not kept (the merchant's generation moved on while it ran). A repository that writes
 * also drops the merchant's entries itself, so this process reads its own writes at once; another process
 * sees them once the notification arrives, a few milliseconds after the commit.
 *
 * Bounded by the JSON size of what it holds (`tuning.readCacheMb`; 0 turns it off). Off until `listen()`: only
 * the api listens, so the worker always reads Postgres.
 *
 * Kept whole: the entries and the connection whose notifications drop them share one epoch.
 */
@Injectable()
export class ReadCache implements OnApplicationShutdown {
  private readonly logger = new Logger(ReadCache.name);
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();
  /** Each merchant's entry ids, so a notification drops exactly theirs. */
  private readonly byScope = new Map<string, Set<string>>();
  /** The same for the finer parts (accounts). */
  private readonly bySub = new Map<string, Set<string>>();
  /** Moves on with every notification of a finer part: a read it overtook is not kept. */
  private subChanges = 0;
  private readonly maxBytes: number;
  private bytes = 0;
  /** Moves on whenever the listening connection is (re)made or lost: every entry of an older one is void. */
  private epoch = 0;
  private live = false;
  private client: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectMs = RECONNECT_MIN_MS;
  private stopped = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.maxBytes = config.tuning.readCacheMb * 1024 * 1024;
  }

  /** Starts listening; resolves once the first attempt has connected or failed (it then keeps retrying). */
  async listen(): Promise<void> {
    if (this.maxBytes === 0 || this.client || this.stopped) return;
    await this.connect();
  }

  /**
   * The value `load` reads, or the one kept from an earlier call with the same merchant and key while no
   * change of that merchant's has been notified since. The value is shared: callers must not change it.
   */
  async read<T>(merchantId: string, key: string, load: () => Promise<T>, sub?: string): Promise<T> {
    const stamp = this.stampOf(merchantId);
    if (!stamp) return load();
    const hit = this.peek<T>(merchantId, key);
    if (hit !== undefined) return hit;
    const value = await load();
    this.keep(merchantId, key, value, stamp, sub);
    return value;
  }

  /**
   * Where the merchant's kept data stands now, to {@link keep} a value made from it: undefined while
   * nothing can be kept (the cache is off, or not listening).
   */
  stampOf(merchantId: string): ReadStamp | undefined {
    if (!this.live) return undefined;
    return {
      epoch: this.epoch,
      generation: this.generations.get(merchantId) ?? 0,
      subChanges: this.subChanges,
    };
  }

  /** The value kept under the merchant's key, while nothing of the merchant's changed since it was kept. */
  peek<T>(merchantId: string, key: string): T | undefined {
    if (!this.live) return undefined;
    const id = `${merchantId}|${key}`;
    const hit = this.entries.get(id);
    if (
      !hit ||
      hit.epoch !== this.epoch ||
      hit.generation !== (this.generations.get(merchantId) ?? 0) ||
      hit.expiresAt <= Date.now()
    ) {
      return undefined;
    }
    this.entries.delete(id);
    this.entries.set(id, hit);
    return hit.value as T;
  }

  /**
   * Keeps a value made from the merchant's data as it stood at `stamp`, unless a change of the merchant's
   * was notified since (the value may be older than the change), or, for a value of a finer part (`sub`),
   * a change of any finer part. `bytes`: what it costs, when its JSON size would not say (a Buffer's).
   */
  keep(
    merchantId: string,
    key: string,
    value: unknown,
    stamp: ReadStamp,
    sub?: string,
    bytes?: number,
  ): void {
    if (
      !this.live ||
      this.epoch !== stamp.epoch ||
      (this.generations.get(merchantId) ?? 0) !== stamp.generation ||
      (sub !== undefined && this.subChanges !== stamp.subChanges)
    ) {
      return;
    }
    const id = `${merchantId}|${key}`;
    this.store(id, {
      value,
      scope: merchantId,
      sub,
      generation: stamp.generation,
      epoch: stamp.epoch,
      bytes: bytes ?? Buffer.byteLength(JSON.stringify(value) ?? ''),
      expiresAt: Date.now() + ENTRY_TTL_MS,
    });
  }

  /** Drops what is kept of the merchant's data (a write of this process; others learn of it by notification). */
  invalidate(merchantId: string): void {
    this.generations.set(merchantId, (this.generations.get(merchantId) ?? 0) + 1);
    for (const id of this.byScope.get(merchantId) ?? []) {
      const entry = this.entries.get(id);
      if (entry) this.remove(id, entry);
    }
    this.byScope.delete(merchantId);
  }

  /** Drops what is kept under one finer part (an account whose stored transactions changed). */
  invalidateSub(sub: string): void {
    this.subChanges += 1;
    for (const id of this.bySub.get(sub) ?? []) {
      const entry = this.entries.get(id);
      if (entry) this.remove(id, entry);
    }
    this.bySub.delete(sub);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.goDark();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private store(id: string, entry: Entry): void {
    const old = this.entries.get(id);
    if (old) this.remove(id, old);
    // The map's own cost counts too: a flood of misses (unknown ids answer null) stays within the budget.
    entry.bytes += ENTRY_OVERHEAD_BYTES + id.length * 2;
    if (entry.bytes > this.maxBytes / 8) return;
    this.entries.set(id, entry);
    this.bytes += entry.bytes;
    let ids = this.byScope.get(entry.scope);
    if (!ids) this.byScope.set(entry.scope, (ids = new Set()));
    ids.add(id);
    if (entry.sub !== undefined) {
      let subIds = this.bySub.get(entry.sub);
      if (!subIds) this.bySub.set(entry.sub, (subIds = new Set()));
      subIds.add(id);
    }
    for (const [oldest, evicted] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, evicted);
    }
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.bytes -= entry.bytes;
    const ids = this.byScope.get(entry.scope);
    ids?.delete(id);
    if (ids?.size === 0) this.byScope.delete(entry.scope);
    if (entry.sub !== undefined) {
      const subIds = this.bySub.get(entry.sub);
      subIds?.delete(id);
      if (subIds?.size === 0) this.bySub.delete(entry.sub);
    }
  }

  private goDark(): void {
    this.live = false;
    this.epoch += 1;
    this.entries.clear();
    this.byScope.clear();
    this.bySub.clear();
    this.bytes = 0;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      // Postgres itself: through a transaction pooler the LISTEN would end with its transaction.
      connectionString: this.config.database.directUrl,
      connectionTimeoutMillis: 5_000,
      // Named, so an operator (and a test) can tell it from the pool's connections.
      application_name: READ_CACHE_APPLICATION_NAME,
    });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel !== READ_CACHE_CHANNEL || !message.payload) return;
      // `merchant`: anything of the merchant's changed; `merchant:account`: only that account's transactions.
      const colon = message.payload.indexOf(':');
      if (colon === -1) this.invalidate(message.payload);
      else this.invalidateSub(message.payload.slice(colon + 1));
    });
    // Whatever ends the connection (a restart, a terminated backend, a network fault) ends the cache.
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.goDark();
      if (error)
        this.logger.warn(
          `read cache: listening connection lost (${error.message}); bypassed until it is back`,
        );
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${READ_CACHE_CHANNEL}`);
      if (this.client !== client) return;
      // Nothing kept from before can be trusted: changes made while nobody listened were not heard.
      this.goDark();
      this.live = true;
      this.reconnectMs = RECONNECT_MIN_MS;
    } catch (error) {
      lost(error as Error);
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = this.reconnectMs;
    this.reconnectMs = Math.min(RECONNECT_MAX_MS, this.reconnectMs * 2);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }
}
