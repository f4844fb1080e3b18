// `npm start`'s console: each app's JSON log lines made readable (scripts/dev.mjs).

const LEVEL_COLOR = { trace: '90', debug: '90', info: '32', warn: '33', error: '31', fatal: '41' };
const APP_COLOR = { api: '35', worker: '34', sandbox: '36' };

/** Turns a JSON log line into one readable line; anything else passes through as is. */
export function prettyLine(app, line, paint) {
  const tag = paint(APP_COLOR[app] ?? '0', app.padEnd(7));
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return `${tag} ${line}`;
  }
  if (typeof entry !== 'object' || entry === null) return `${tag} ${line}`;
  const { time, level, msg, app: _a, pid: _p, context, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const lvl = paint(LEVEL_COLOR[level] ?? '0', String(level ?? '').padEnd(5));
  const extra = Object.keys(rest).length ? paint('90', ` ${JSON.stringify(rest)}`) : '';
  return `${paint('90', clock)} ${tag} ${lvl} ${context ? paint('90', `[${context}] `) : ''}${msg ?? ''}${extra}`;
}
