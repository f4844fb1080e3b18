import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';

/** A page as the API serves it: the records' JSON joined, their count, and the next page's cursor. */
export interface StoredPage {
  /**
   * The records as served (servedPageJson), joined: encoded once when the page is kept, and every later answer
   * sends those bytes themselves; text when it is served once. A 100 KiB buffer made for one answer counts
   * as V8's external memory, whose growth starts collections of the whole heap: with the cache off they
   * were a third of a page's CPU (issue 82), and text is collected young.
   */
  recordsJson: Buffer | string;
  count: number;
  nextCursor: string | null;
}

/**
 * Pages of stored transactions this process has served, keyed by the account's transactions version and
 * the query: a sync that changes anything moves the version on, so a stale page is never served, in any
 * process, and no invalidation message is needed; old versions fall out as the least recently used.
 * Bounded by the bytes of the JSON it holds (`tuning.storedPageCacheMb`; 0 turns it off).
 */
@Injectable()
export class StoredPageCache {
  private readonly pages = new Map<string, StoredPage>();
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.maxBytes = config.tuning.storedPageCacheMb * 1024 * 1024;
  }

  get(key: string): StoredPage | undefined {
    const page = this.pages.get(key);
    if (page) {
      // Most recently used last: Map keeps insertion order.
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  /** The page as kept (its records encoded) when it fits, else as it is. */
  keep(key: string, page: StoredPage & { recordsJson: string }): StoredPage {
    if (this.maxBytes === 0 || Buffer.byteLength(page.recordsJson) > this.maxBytes / 8) return page;
    const kept = { ...page, recordsJson: Buffer.from(page.recordsJson, 'utf8') };
    this.set(key, kept);
    return kept;
  }

  private set(key: string, page: StoredPage): void {
    const size = page.recordsJson.length;
    const old = this.pages.get(key);
    if (old) {
      this.pages.delete(key);
      this.bytes -= old.recordsJson.length;
    }
    this.pages.set(key, page);
    this.bytes += size;
    for (const [oldest, evicted] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.pages.delete(oldest);
      this.bytes -= evicted.recordsJson.length;
    }
  }
}
