import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { ResetRegistryService } from './reset-registry.service.js';

const VERSION = 1;
/** Changes are written at most this often (and at shutdown and after a reset): hot paths never wait on disk. */
const FLUSH_EVERY_MS = 500;

/** JSON with Maps, Sets and Dates kept as what they were. */
function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw instanceof Date) return { $date: raw.toISOString() };
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value.values()] };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const tagged = value as { $date?: string; $map?: [unknown, unknown][]; $set?: unknown[] };
  if (typeof tagged.$date === 'string') return new Date(tagged.$date);
  if (Array.isArray(tagged.$map)) return new Map(tagged.$map);
  if (Array.isArray(tagged.$set)) return new Set(tagged.$set);
  return value;
}

/**
 * The sandbox's durable state: with SANDBOX_DATA_DIR set, every registered part is written to
 * `<dir>/state.json` (a temporary file renamed over it, mode 0600) whenever it changed, at most every
 * 500 ms, at shutdown and right after a reset; at boot the file is read back. Merchants develop against
 * the sandbox for weeks, and our own database remembers users, consents and payments across restarts,
 * so the sandbox must too. A file it cannot read stops the boot with its path: nothing is silently lost.
 */
@Injectable()
export class SandboxStateFile implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly file: string | null;
  private timer: NodeJS.Timeout | undefined;
  private written = '';

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly registry: ResetRegistryService,
  ) {
    this.file = config.sandbox.dataDir ? join(config.sandbox.dataDir, 'state.json') : null;
  }

  onApplicationBootstrap(): void {
    if (!this.file) return;
    mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
    if (existsSync(this.file)) this.load(this.file);
    this.written = this.serialise();
    this.registry.onReset(() => this.flush());
    this.timer = setInterval(() => this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.flush();
  }

  /** Writes the state if it changed since the last write. */
  flush(): void {
    if (!this.file) return;
    const text = this.serialise();
    if (text === this.written) return;
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.file);
    this.written = text;
  }

  private serialise(): string {
    const parts = Object.fromEntries(this.registry.parts.map((part) => [part.name, part.save()]));
    return JSON.stringify({ version: VERSION, parts }, replacer);
  }

  private load(file: string): void {
    let state: { version?: unknown; parts?: Record<string, unknown> };
    try {
      state = JSON.parse(readFileSync(file, 'utf8'), reviver) as typeof state;
    } catch (error) {
      throw new Error(
        `The sandbox state file ${file} is not readable JSON (${(error as Error).message}); move it away or delete it to start from the seeded state.`,
      );
    }
    if (state.version !== VERSION || typeof state.parts !== 'object' || state.parts === null) {
      throw new Error(
        `The sandbox state file ${file} has version ${String(state.version)}, this sandbox reads version ${VERSION}; move it away or delete it to start from the seeded state.`,
      );
    }
    for (const part of this.registry.parts) {
      if (part.name in state.parts) part.load(state.parts[part.name]);
    }
    this.logger.info({ file, parts: Object.keys(state.parts) }, 'sandbox state restored');
  }
}
