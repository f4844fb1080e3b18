// The Prisma schema engine as scripts/db-migration.mjs drives it: the WebAssembly engine loaded by hand,
// the migrations read as the Prisma CLI would, the shadow databases it replays them into, and the
// workarounds @prisma/adapter-pg needs for all that.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

export const SHADOW_PREFIX = 'prisma_migrate_shadow_db_';
export const LOCKFILE = 'migration_lock.toml';

/** A failure the tool explains in words (exit 2), not a crash. */
export class ToolError extends Error {}

/** Same shape as the Prisma CLI's migration list, so the engine validates it exactly as `migrate dev` would. */
export async function readMigrations(baseDir) {
  const lockfile = await fs.readFile(path.join(baseDir, LOCKFILE), 'utf8').catch(() => null);
  const entries = await fs.readdir(baseDir, { withFileTypes: true }).catch((error) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const migrationDirectories = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory())
      .map(async (entry) => ({
        path: entry.name,
        migrationFile: {
          path: 'migration.sql',
          content: await fs.readFile(path.join(baseDir, entry.name, 'migration.sql'), 'utf8').then(
            (value) => ({ tag: 'ok', value }),
            (error) => ({ tag: 'error', value: error.message }),
          ),
        },
      })),
  );
  // Plain code-unit order, as the runner's `.sort()`: the replay order must be the apply order.
  migrationDirectories.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: lockfile },
    migrationDirectories,
    shadowDbInitScript: '',
  };
}

export async function loadSchemaEngine() {
  const pkgDir = path.dirname(
    fileURLToPath(import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
  );
  // The package's main entry imports the .wasm file as an ES module, still experimental in Node 24; so instantiate
  // it by hand and hand it to the wasm-bindgen glue, as that entry would.
  const glue = await import(path.join(pkgDir, 'schema_engine_bg.js'));
  const bytes = await fs.readFile(path.join(pkgDir, 'schema_engine_bg.wasm'));
  const instance = new globalThis.WebAssembly.Instance(new globalThis.WebAssembly.Module(bytes), {
    './schema_engine_bg.js': glue,
  });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue.SchemaEngine;
}

/**
 * Creates and drops the shadow databases over one admin connection. Because pg runs a client's queries in
 * order, a DROP queued by the Ctrl-C handler always runs after a CREATE still in flight, so a database
 * created at the last moment is not missed.
 */
export class ShadowDatabases {
  constructor(url) {
    this.url = url;
    this.names = new Set();
    this.client = null;
  }

  async admin() {
    this.client ??= this.connect(this.url);
    return this.client;
  }

  async connect(url) {
    const client = new pg.Client({ connectionString: url.href });
    // A dropped connection must surface as a failed query, not as an unhandled 'error' event.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  async create() {
    const name = `${SHADOW_PREFIX}${randomUUID()}`;
    this.names.add(name);
    const admin = await this.admin();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(this.url);
    url.pathname = `/${name}`;
    return { name, url };
  }

  async drop(name) {
    const admin = await this.admin();
    // FORCE (Postgres 13+) also ends connections the engine may still hold after an error or Ctrl-C.
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    this.names.delete(name);
  }

  /** Drops every shadow database still known, then closes the admin connection; never throws. */
  async dropAll() {
    const leftovers = [];
    for (const name of [...this.names]) {
      await this.drop(name).catch((error) => leftovers.push(`${name} (${error.message})`));
    }
    if (this.client) {
      const client = await this.client.catch(() => null);
      this.client = null;
      await client?.end().catch(() => undefined);
    }
    if (leftovers.length > 0) {
      console.error(`Could not drop shadow database(s), drop them by hand: ${leftovers.join(', ')}`);
    }
  }
}

// Workaround for @prisma/adapter-pg 7.10.1: its executeScript splits a migration at every `;`, even inside a
// `$$` function body (a trigger function's statements). Postgres runs the script whole in one simple-protocol
// query, as the runner (libs/database/src/migrator.ts) does.
function wholeScripts(adapter) {
  adapter.executeScript = async (script) => {
    try {
      await adapter.underlyingDriver().query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

// Workaround for @prisma/adapter-pg 7.10.1: its connectToShadowDb connects with `{ ...config, database }`,
// but pg lets `connectionString` win over `database`, so the engine would replay the migrations into the
// DATABASE_URL database itself; and its dispose drops the freshly created shadow database before
// ending the pool that is still connected to it, so the drop fails and the database is left behind.
export class ShadowAwarePg extends PrismaPg {
  constructor(url, shadows) {
    super({ connectionString: url.href });
    this.shadows = shadows;
    this.open = new Set();
  }

  // The engine connects to the main database when it starts and never disposes that adapter (not even in
  // free()), and its idle pool would keep the process alive for pg's 10 s idle timeout.
  async connect() {
    const adapter = wholeScripts(await super.connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      if (!this.open.delete(adapter)) return;
      await dispose();
    };
    this.open.add(adapter);
    return adapter;
  }

  async disposeAll() {
    await Promise.all([...this.open].map((adapter) => adapter.dispose().catch(() => undefined)));
  }

  async connectToShadowDb() {
    const { name, url } = await this.shadows.create();
    const adapter = wholeScripts(await new PrismaPg({ connectionString: url.href }).connect());
    const endPool = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      try {
        await endPool();
      } finally {
        await this.shadows.drop(name);
      }
    };
    return adapter;
  }
}

// Workaround for @prisma/adapter-pg 7.10.1: the engine's introspection queries return catalog columns of
// Postgres's internal one-byte "char" type (oid 18, like pg_class.relkind), for which the adapter
// has no column type and fails the query with UnsupportedNativeDataType. pg already hands such values
// over as strings, so relabelling the column as text (oid 25) is exact. The adapter's query class is not
// exported; it is reached through the prototype chain of an adapter (connect() opens no connection).
export async function relabelInternalCharColumns(factory) {
  const probe = await factory.connect();
  const queryable = Object.getPrototypeOf(Object.getPrototypeOf(probe));
  await probe.dispose();
  if (typeof queryable.performIO !== 'function') {
    throw new ToolError('@prisma/adapter-pg changed shape (no performIO); revisit the "char" workaround.');
  }
  const performIO = queryable.performIO;
  queryable.performIO = async function (query) {
    const result = await performIO.call(this, query);
    for (const field of result?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
    return result;
  };
}
