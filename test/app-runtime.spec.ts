import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { APP_ENV, APP_NODE_FLAGS } from '../scripts/app-runtime.mjs';

/*
 * `npm start` and the bench take each app's environment and Node flags from scripts/app-runtime.mjs;
 * Docker cannot import it, so docker-compose.yml and the Dockerfile repeat them, held to it here.
 */

const compose = load(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, { command?: string[] }>;
};
const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');

/** The Node flags a command gives before the app's main file (source maps aside). */
const flagsBefore = (command: string[], main: string) =>
  command.slice(1, command.indexOf(main)).filter((f) => f !== '--enable-source-maps');

describe('how the apps run', () => {
  it('names the Node flags of every app under apps/ (npm start starts each with them)', () => {
    const apps = readdirSync(new URL('../apps', import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(Object.keys(APP_NODE_FLAGS).sort()).toEqual(apps.sort());
  });

  it.each(Object.entries(APP_NODE_FLAGS))('starts the %s in Docker with its Node flags', (app, flags) => {
    const main = `dist/apps/${app}/src/main.js`;
    const commands = Object.values(compose.services)
      .map((s) => s.command ?? [])
      .filter((c) => c.includes(main));
    // The demo merchant app is npm start's alone.
    if (flags.length > 0) expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(flagsBefore(command, main)).toEqual(flags);
  });

  it("starts the image's default command, the api, with the api's Node flags", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd, 'the Dockerfile has no CMD in exec form').toBeDefined();
    const command = JSON.parse(cmd!) as string[];
    expect(command).toContain('dist/apps/api/src/main.js');
    expect(flagsBefore(command, 'dist/apps/api/src/main.js')).toEqual(APP_NODE_FLAGS.api);
  });

  it('gives every app the environment npm start gives it', () => {
    for (const [name, value] of Object.entries(APP_ENV)) expect(dockerfile).toContain(`ENV ${name}=${value}`);
  });
});
