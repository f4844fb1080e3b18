/**
 * pino's `isoTime` (`,"time":"2026-11-27T14:35:07.123Z"`), with the part up to the second made once a
 * second: every log line (one a request, the access log's) asked `Date#toISOString` for it, and in the
 * api's request path that cost more than a cached prefix and three digits. Same text, to the millisecond.
 */
let second = Number.NaN;
let prefix = '';

export function isoTimeAt(now: number): string {
  const at = Math.floor(now / 1000);
  if (at !== second) {
    // "2026-11-27T14:35:07."
    prefix = new Date(at * 1000).toISOString().slice(0, 20);
    second = at;
  }
  const ms = now - at * 1000;
  return `,"time":"${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}

export const isoTime = (): string => isoTimeAt(Date.now());
