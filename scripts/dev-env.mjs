// The environment `npm start` and `npm test` give the apps, over the configuration's own defaults
// (libs/config). Node built-ins only: scripts/dev.mjs runs before anything is installed.
import { join } from 'node:path';

/** The database `npm start` uses unless DATABASE_URL says otherwise (libs/config's default). */
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/bff';

const TEST_MODES = new Set(['test', 'properties', 'repeat', 'failover-tests']);

/** Unset or empty: an empty value means the default, as it does for libs/config. */
export const isUnset = (value) => value === undefined || value === '';

/** Sets `name` to `value` unless it holds a value already (an empty one does not count). */
export function setDefault(env, name, value) {
  if (isUnset(env[name])) env[name] = value;
  return env[name];
}

/**
 * What a mode of scripts/dev.mjs turns on for the local stack, where the configuration's default is
 * meant for other places (tests, production). `.env` may set another real value; an empty one keeps these.
 */
export function modeDefaults(mode, root) {
  if (mode === 'start') {
    return {
      // The sandbox is what merchants develop against for weeks: it keeps its state across restarts.
      SANDBOX_DATA_DIR: join(root, '.dev', 'sandbox'),
      // The api registers our webhook receiver with the sandbox as it starts, unless the sandbox still lists
      // ours (a reset or a fresh .dev/sandbox forgets it), so a consent revoked at a sandbox bank reaches us.
      UPSTREAM_WEBHOOK_AUTO_REGISTER: 'true',
    };
  }
  if (TEST_MODES.has(mode)) return { LOG_LEVEL: 'silent' };
  return {};
}

/**
 * Fills `env` for one mode of scripts/dev.mjs (after `.env` was loaded into it) and returns the settings
 * of {@link modeDefaults} that `env` holds another value for, so `npm start` can say so.
 */
export function applyDevDefaults(env, mode, root) {
  if (TEST_MODES.has(mode)) {
    // Tests get their own database and queue prefix so they never touch dev data.
    env.NODE_ENV = 'test';
    const base = new URL(isUnset(env.DATABASE_URL) ? DEFAULT_DATABASE_URL : env.DATABASE_URL);
    base.pathname = `${base.pathname.replace(/^\//, '') || 'bff'}_test`;
    env.DATABASE_URL = isUnset(env.TEST_DATABASE_URL) ? base.toString() : env.TEST_DATABASE_URL;
    // As the database: the development prefix with `-test`, so two checkouts sharing a Redis (each with its
    // own QUEUE_PREFIX in .env) never share test queues either. vitest.config.ts reads TEST_QUEUE_PREFIX.
    const queuePrefix = `${isUnset(env.QUEUE_PREFIX) ? 'bff' : env.QUEUE_PREFIX}-test`;
    env.QUEUE_PREFIX = isUnset(env.TEST_QUEUE_PREFIX) ? queuePrefix : env.TEST_QUEUE_PREFIX;
    env.TEST_QUEUE_PREFIX = env.QUEUE_PREFIX;
  }
  const overridden = [];
  for (const [name, value] of Object.entries(modeDefaults(mode, root))) {
    if (setDefault(env, name, value) !== value) overridden.push({ name, value: env[name], ours: value });
  }
  return overridden;
}

/** One line for `npm start`'s banner naming the settings `.env` (or the shell) set against its defaults. */
export function overriddenLine(overridden, fromShell = new Set()) {
  if (overridden.length === 0) return null;
  const what = overridden.map(({ name, value, ours }) => `${name}=${value} (npm start: ${ours})`).join(', ');
  const where = overridden.every(({ name }) => fromShell.has(name))
    ? 'the environment'
    : overridden.some(({ name }) => fromShell.has(name))
      ? '.env or the environment'
      : '.env';
  return `  ${where} overrides npm start: ${what}`;
}

/** Each of {@link modeDefaults}' settings, with what every mode sets it to, for `.env.example`. */
export function devDefaultNotes() {
  const notes = {};
  for (const [mode, command] of [
    ['start', 'npm start'],
    ['test', 'npm test'],
  ]) {
    for (const [name, value] of Object.entries(modeDefaults(mode, '.'))) {
      notes[name] = [...(notes[name] ?? []), `${command}: ${value}`];
    }
  }
  return Object.fromEntries(Object.entries(notes).map(([name, list]) => [name, list.join(', ')]));
}
