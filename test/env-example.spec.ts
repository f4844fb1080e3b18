import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type AppConfig, loadConfig, SETTING_NAMES } from '#libs/config';
import { ENV_EXAMPLE_COMMAND, renderEnvExample, withSettingsTable } from '../libs/config/src/env-example.js';
import { applyDevDefaults, devDefaultNotes, overriddenLine, setDefault } from '../scripts/dev-env.mjs';

/**
 * `.env.example` is what the configuration schema says, and copying it to `.env` changes nothing: an empty
 * value means the default, in libs/config and in scripts/dev.mjs, so `npm start`'s own defaults for the
 * local stack (an auto-registered receiver, a sandbox that keeps its state) hold with a copied file too.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
const configurationDoc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');

/** Real secrets, as a production shell sets them (a value from the shell wins over .env's). */
const PRODUCTION = {
  NODE_ENV: 'production',
  ADMIN_TOKEN: 'a-real-operator-token-of-some-length',
  ENCRYPTION_KEYS: `prod1:${Buffer.alloc(32, 7).toString('base64')}`,
  SIGNING_SECRET: 'x'.repeat(40),
  UPSTREAM_APPLICATION_SECRET: 'real-upstream-secret',
  SANDBOX_ADMIN_TOKEN: 'another-real-token',
  UPSTREAM_BASE_URL: 'https://upstream.example',
};

/** What the apps of one mode of scripts/dev.mjs boot with, given the shell and a .env's assignments. */
function bootConfig(mode: string, dotEnv: Record<string, string>, shell: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = { ...dotEnv, ...shell };
  const overridden = applyDevDefaults(env, mode, ROOT);
  return { config: loadConfig(env), overridden };
}

const withPort = (config: AppConfig, port: number): AppConfig => ({
  ...config,
  api: { ...config.api, port, publicUrl: `http://localhost:${port}` },
});

describe('.env.example', () => {
  it('is what the configuration schema generates', () => {
    expect(
      example,
      `.env.example differs from the configuration schema (libs/config/src/env.dto.ts): run \`${ENV_EXAMPLE_COMMAND}\``,
    ).toBe(renderEnvExample(devDefaultNotes()));
  });

  it('lists every setting once, each with a one-line meaning above it', () => {
    const lines = example.split('\n');
    const names = lines.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)).map((l) => l.split('=')[0]);
    expect(names).toEqual([...SETTING_NAMES]);
    for (const name of names) {
      expect(lines[lines.findIndex((l) => l.startsWith(`${name}=`)) - 1], name).toMatch(/^# \S/);
    }
  });

  it('copied to .env with only API_PORT changed, behaves exactly as no .env at all', () => {
    const copied = { ...parseEnv(example), API_PORT: '3999' } as Record<string, string>;
    for (const mode of ['start', 'test']) {
      const bare = bootConfig(mode, {});
      const withCopy = bootConfig(mode, copied);
      expect(withCopy.config, mode).toEqual(withPort(bare.config, 3999));
      expect(withCopy.overridden, mode).toEqual([]);
    }
    // npm start turns these on for the local stack; a copied file keeps them on.
    const { config } = bootConfig('start', copied);
    expect(config.events.upstreamAutoRegister).toBe(true);
    expect(config.sandbox.dataDir).toBe(`${ROOT.replace(/\/$/, '')}/.dev/sandbox`);
    expect(bootConfig('test', copied).config.logLevel).toBe('silent');
    // …and so does production, where the demo merchant is off unless its key is set.
    expect(loadConfig({ ...copied, ...PRODUCTION })).toEqual(withPort(loadConfig(PRODUCTION), 3999));
  });
});

describe('docs/configuration.md', () => {
  it("holds the schema's table of settings, one line each, as generated", () => {
    expect(
      configurationDoc,
      `docs/configuration.md's settings table differs from the schema: run \`${ENV_EXAMPLE_COMMAND}\``,
    ).toBe(withSettingsTable(configurationDoc, devDefaultNotes()));
    const rows = configurationDoc.split('\n').filter((l) => /^\| `[A-Z][A-Z0-9_]*` \| /.test(l));
    expect(rows.slice(0, SETTING_NAMES.length).map((l) => l.split('`')[1])).toEqual([...SETTING_NAMES]);
  });
});

describe('an empty value means the default', () => {
  it('for every setting of the configuration, in development and in production', () => {
    const bare = loadConfig({});
    const production = loadConfig(PRODUCTION);
    for (const name of SETTING_NAMES) {
      expect(loadConfig({ [name]: '' }), name).toEqual(bare);
      if (!(name in PRODUCTION)) expect(loadConfig({ ...PRODUCTION, [name]: '' }), name).toEqual(production);
    }
  });

  it("for scripts/dev.mjs's own defaults, which a real other value overrides, and the banner says so", () => {
    const env: Record<string, string | undefined> = { EMPTY: '', SET: 'x' };
    expect(setDefault(env, 'EMPTY', 'default')).toBe('default');
    expect(setDefault(env, 'UNSET', 'default')).toBe('default');
    expect(setDefault(env, 'SET', 'default')).toBe('x');

    const empty = { UPSTREAM_WEBHOOK_AUTO_REGISTER: '', SANDBOX_DATA_DIR: '' };
    expect(bootConfig('start', empty).overridden).toEqual([]);
    expect(bootConfig('start', empty).config.events.upstreamAutoRegister).toBe(true);

    const off = bootConfig('start', { UPSTREAM_WEBHOOK_AUTO_REGISTER: 'false' });
    expect(off.config.events.upstreamAutoRegister).toBe(false);
    expect(off.overridden).toEqual([
      { name: 'UPSTREAM_WEBHOOK_AUTO_REGISTER', value: 'false', ours: 'true' },
    ]);
    expect(overriddenLine(off.overridden)).toBe(
      '  .env overrides npm start: UPSTREAM_WEBHOOK_AUTO_REGISTER=false (npm start: true)',
    );
    expect(overriddenLine(off.overridden, new Set(['UPSTREAM_WEBHOOK_AUTO_REGISTER']))).toMatch(
      /^ {2}the environment overrides npm start: /,
    );
    expect(overriddenLine([])).toBeNull();
  });

  it('for the test database and queue prefix npm test derives', () => {
    const env: Record<string, string | undefined> = {
      DATABASE_URL: '',
      TEST_DATABASE_URL: '',
      TEST_QUEUE_PREFIX: '',
      LOG_LEVEL: '',
    };
    applyDevDefaults(env, 'test', ROOT);
    expect(env).toMatchObject({
      NODE_ENV: 'test',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bff_test',
      QUEUE_PREFIX: 'bff-test',
      LOG_LEVEL: 'silent',
    });
    // .env's own names carry over, each with the test suffix.
    const named: Record<string, string | undefined> = {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/shop',
      QUEUE_PREFIX: 'shop',
      TEST_DATABASE_URL: '',
      TEST_QUEUE_PREFIX: '',
    };
    applyDevDefaults(named, 'test', ROOT);
    expect(named).toMatchObject({
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/shop_test',
      QUEUE_PREFIX: 'shop-test',
      TEST_QUEUE_PREFIX: 'shop-test',
    });
  });
});
