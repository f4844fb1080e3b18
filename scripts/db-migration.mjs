#!/usr/bin/env node
// `npm run db:migration`: writes the next prisma/migrations/<timestamp>_<name>/migration.sql from
// schema.prisma, or checks that the two agree. The Prisma CLI cannot do this here: `prisma migrate dev`
// and `migrate diff` need a native schema engine that is downloaded at run time, and this machine only
// reaches the npm registry. Prisma's WebAssembly schema engine (an npm package) does the same diff when
// it is given a driver adapter, so this script drives it directly. The result is then applied by the
// project's own runner (libs/database/src/migrator.ts), never by this script. Kept whole: the command
// line and its three modes; the engine's plumbing is in db-migration-engine.mjs.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import {
  loadSchemaEngine,
  LOCKFILE,
  readMigrations,
  relabelInternalCharColumns,
  SHADOW_PREFIX,
  ShadowAwarePg,
  ShadowDatabases,
  ToolError,
} from './db-migration-engine.mjs';
import { schemaWithCatalogue } from './event-enum.mjs';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_SCHEMA = path.join(ROOT, 'prisma', 'schema.prisma');
const DEFAULT_MIGRATIONS = path.join(ROOT, 'prisma', 'migrations');
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/bff';
// Prisma's own prefix, so leftovers of either tool are recognisable (and removable) the same way.
const NAME_PATTERN = /^[a-z0-9_]{1,60}$/;

const EXIT_OK = 0;
const EXIT_DRIFT = 1;
const EXIT_FAILURE = 2;

const HELP = `Usage: npm run db:migration -- <name> | --check | --print [options]

Compares prisma/migrations (replayed into a throwaway shadow database) with prisma/schema.prisma.

  <name>              Write prisma/migrations/<UTC yyyyMMddHHmmss>_<name>/migration.sql with the SQL that
                      brings the migrations up to the schema; <name> is lower snake case, [a-z0-9_]{1,60}.
                      Writes nothing when they already agree. First writes the schema's
                      MerchantEventType from the event catalogue.
  --check             Exit 0 when migrations and schema agree, 1 (with the missing SQL on stderr) when not.
  --print             Print the missing SQL to stdout; write nothing.

Options:
  --schema <path>     Prisma schema to compare against (default: prisma/schema.prisma).
  --migrations <dir>  Migrations directory to read and write (default: prisma/migrations).
  -h, --help          Show this help.

Environment:
  DATABASE_URL        A Postgres server on which this user may CREATE DATABASE; the shadow databases
                      (${SHADOW_PREFIX}*) are created there and always dropped again. Read from .env
                      at the repository root when present; default ${DEFAULT_DATABASE_URL}.
                      That database must exist (the engine connects to it) but is not changed.

Exit codes: 0 success or no difference, 1 --check found a difference, 2 usage error or failure.

Applied migrations must not be edited (the runner checks their checksums): change schema.prisma and
generate a new migration instead.`;

class UsageError extends Error {}
function parseCommandLine(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        check: { type: 'boolean' },
        print: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        schema: { type: 'string' },
        migrations: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { mode: 'help' };
  const modes = [
    values.check && 'check',
    values.print && 'print',
    positionals.length > 0 && 'generate',
  ].filter(Boolean);
  if (modes.length !== 1 || positionals.length > 1) {
    throw new UsageError('Give exactly one of: a migration name, --check, --print.');
  }
  const name = positionals[0];
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    throw new UsageError(`Invalid migration name "${name}": use lower snake case, [a-z0-9_]{1,60}.`);
  }
  return {
    mode: modes[0],
    name,
    schemaPath: path.resolve(values.schema ?? DEFAULT_SCHEMA),
    migrationsDir: path.resolve(values.migrations ?? DEFAULT_MIGRATIONS),
  };
}

function databaseUrl() {
  const envFile = path.join(ROOT, '.env');
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  try {
    return new URL(url);
  } catch {
    throw new ToolError('DATABASE_URL is not a valid URL.');
  }
}

function describeEngineError(error, adapter, migrationsDir) {
  const message = String(error?.message ?? error);
  // The engine appends its internal span trace ("0: schema_engine_wasm::…"), which only helps Prisma.
  const summary = message.replace(/\n\s*0: schema_engine[\s\S]*$/, '').trim();
  const lines = [`Schema engine error${error?.code ? ` ${error.code}` : ''}: ${summary}`];
  // Driver failures reach the engine only as an id; the original error stays in the adapter's registry.
  const id = /id#(\d+)/.exec(message)?.[1];
  const driverError = id ? adapter.errorRegistry.consumeError(Number(id))?.error : undefined;
  if (driverError) lines.push(`Database error: ${JSON.stringify(driverError)}`);
  if (error?.code === 'P3006' || /failed to apply cleanly/.test(message)) {
    lines.push(
      `Migrations in ${migrationsDir} are replayed in name order into an empty database, and that one fails.` +
        '\nFix it only if it was never applied anywhere; the runner rejects edited applied migrations.',
    );
  }
  return lines.join('\n');
}

/** Returns the SQL that takes the migrations to the schema, or '' when they agree. */
async function diff({ schemaPath, migrationsDir }, url, shadows) {
  const schema = await fs.readFile(schemaPath, 'utf8').catch((error) => {
    throw new ToolError(`Cannot read the schema ${schemaPath}: ${error.message}`);
  });
  const files = [{ path: schemaPath, content: schema }];
  const migrations = await readMigrations(migrationsDir);
  for (const { path: dir, migrationFile } of migrations.migrationDirectories) {
    if (migrationFile.content.tag === 'error') {
      throw new ToolError(
        `Broken migration ${path.join(migrationsDir, dir)}: ${migrationFile.content.value}`,
      );
    }
  }

  const factory = new ShadowAwarePg(url, shadows);
  await relabelInternalCharColumns(factory);
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const SchemaEngine = await loadSchemaEngine();
  let engine;
  try {
    engine = await SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => undefined, adapter);
    const result = await engine.diff({
      from: { tag: 'migrations', ...migrations },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    // exitCode: 0 = no difference, 2 = difference (the engine's `migrate diff --exit-code` convention).
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } catch (error) {
    throw new ToolError(describeEngineError(error, adapter, migrationsDir));
  } finally {
    try {
      engine?.free();
    } catch {
      // A panicked engine may refuse to free; the process is about to end anyway.
    }
    await factory.disposeAll();
  }
}

function utcStamp(date) {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

/** The new directory must sort after every existing one, or the runner would apply it too early. */
async function nextMigrationDir(migrationsDir, name) {
  const existing = (await readMigrations(migrationsDir)).migrationDirectories.map((d) => d.path);
  const last = existing.at(-1);
  let date = new Date();
  const lastStamp = /^\d{14}/.exec(last ?? '')?.[0];
  if (lastStamp && utcStamp(date) <= lastStamp) {
    const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(lastStamp).map(Number);
    date = new Date(Date.UTC(y, mo - 1, d, h, mi, s + 1));
  }
  return path.join(migrationsDir, `${utcStamp(date)}_${name}`);
}

async function writeMigration(migrationsDir, name, sql) {
  await fs.mkdir(migrationsDir, { recursive: true });
  const lockfile = path.join(migrationsDir, LOCKFILE);
  if (!existsSync(lockfile)) await fs.writeFile(lockfile, 'provider = "postgresql"\n');
  const dir = await nextMigrationDir(migrationsDir, name);
  await fs.mkdir(dir); // not recursive: never overwrite an existing migration
  const file = path.join(dir, 'migration.sql');
  await fs.writeFile(file, sql);
  return file;
}

/**
 * The event types' enum is the catalogue's (scripts/event-enum.mjs): written before the diff, so a new
 * event's migration comes from the catalogue alone. --check and --print change nothing.
 */
async function writeEventEnum() {
  const current = await fs.readFile(DEFAULT_SCHEMA, 'utf8');
  const made = await schemaWithCatalogue(DEFAULT_SCHEMA);
  if (made === current) return;
  await fs.writeFile(DEFAULT_SCHEMA, made);
  console.log("Wrote schema.prisma's MerchantEventType from the event catalogue");
}

async function main(argv) {
  const options = parseCommandLine(argv);
  if (options.mode === 'help') {
    console.log(HELP);
    return EXIT_OK;
  }
  const url = databaseUrl();
  const shadows = new ShadowDatabases(url);
  const interrupt = (signal, code) => {
    process.once(signal, () => {
      console.error(`\n${signal}: dropping shadow databases…`);
      // A second Ctrl-C gets the default behaviour, i.e. exits at once.
      void shadows.dropAll().finally(() => process.exit(code));
    });
  };
  interrupt('SIGINT', 130);
  interrupt('SIGTERM', 143);

  if (options.schemaPath === DEFAULT_SCHEMA && options.mode === 'generate') await writeEventEnum();
  let sql;
  try {
    sql = await diff(options, url, shadows);
  } finally {
    await shadows.dropAll();
  }

  const schemaLabel = options.schemaPath === DEFAULT_SCHEMA ? 'schema.prisma' : options.schemaPath;
  const migrationsLabel =
    options.migrationsDir === DEFAULT_MIGRATIONS ? 'prisma/migrations' : options.migrationsDir;
  const agree = `${schemaLabel} and ${migrationsLabel} agree`;
  if (options.mode === 'check') {
    if (!sql) {
      console.log(`${agree}.`);
      return EXIT_OK;
    }
    console.error(
      `${schemaLabel} has changes that no migration in ${migrationsLabel} contains.\n` +
        `Generate one with: npm run db:migration -- <name>\nMissing SQL:\n\n${sql}`,
    );
    return EXIT_DRIFT;
  }
  if (options.mode === 'print') {
    // The message goes to stderr so that stdout is only ever SQL.
    if (sql) process.stdout.write(sql);
    else console.error(`${agree}; nothing to print`);
    return EXIT_OK;
  }
  if (!sql) {
    console.log(`${agree}; nothing to write`);
    return EXIT_OK;
  }
  const file = await writeMigration(options.migrationsDir, options.name, sql);
  console.log(`Wrote ${path.relative(process.cwd(), file)}\n\n${sql}`);
  console.log('Review it before committing; once applied anywhere it must not be edited.');
  return EXIT_OK;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${HELP}`);
  } else if (error instanceof ToolError) {
    console.error(error.message);
  } else if (error?.code === 'ECONNREFUSED' || error?.code === '28P01' || error?.code === '3D000') {
    console.error(`Cannot connect to Postgres (DATABASE_URL): ${error.message}`);
  } else {
    console.error(error?.stack ?? error);
  }
  process.exitCode = EXIT_FAILURE;
}
