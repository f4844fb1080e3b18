import { EnvironmentVariables, settingDoc } from './env.dto.js';

/** The command that writes `.env.example`; the test that compares the file names it. */
export const ENV_EXAMPLE_COMMAND = 'npm run config:example';

const HEADER = [
  `# Generated from libs/config/src/env.dto.ts by \`${ENV_EXAMPLE_COMMAND}\`: edit the @Setting there, not this file.`,
  '#',
  '# Every setting of the api, worker and sandbox, with its default. Copy to .env to change any of them;',
  '# `npm start` and `npm test` load .env when it exists. An empty value means the default, everywhere.',
  '# Settings that `npm start` or `npm test` set for the local stack are empty here (the comment says what',
  '# they become), so a copy of this file changes nothing until you edit it. Defaults are for local',
  '# development only: NODE_ENV=production refuses the dev secrets below (ADMIN_TOKEN, ENCRYPTION_KEYS, …).',
];

/**
 * The text of `.env.example`: every setting of {@link EnvironmentVariables}, in its order, under its
 * section, with its one-line meaning and its default. `localDefaults` names the settings scripts/dev.mjs
 * fills for the local stack, with what it fills them with ("npm start: true"): those are left empty, so
 * a copied file keeps what `npm start` does, and the comment says both values.
 */
export function renderEnvExample(localDefaults: Readonly<Record<string, string>> = {}): string {
  const defaults = new EnvironmentVariables() as unknown as Record<string, string | number | undefined>;
  const lines = [...HEADER];
  for (const name of Object.keys(defaults)) {
    const doc = settingDoc(name);
    if (!doc) throw new Error(`${name} has no @Setting in libs/config/src/env.dto.ts`);
    if (/[\r\n]/.test(doc.meaning)) throw new Error(`${name}: the @Setting meaning must be one line`);
    const fallback = defaults[name] === undefined ? undefined : String(defaults[name]);
    const local = localDefaults[name];
    if (doc.section) lines.push('', `# ---- ${doc.section}`, '');
    let comment = doc.meaning;
    if (local !== undefined && fallback !== undefined) comment += `. Empty: ${fallback}`;
    if (local !== undefined) comment += ` (${local})`;
    lines.push(`# ${comment}`, `${name}=${local !== undefined ? '' : (doc.example ?? fallback ?? '')}`);
  }
  return `${lines.join('\n')}\n`;
}
