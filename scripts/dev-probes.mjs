// What scripts/dev.mjs asks of the machine and of the apps it starts: whether a port answers, whether
// an app's URL does and why not, and how long each step took. Node built-ins only, as dev.mjs.
import { connect } from 'node:net';

/** Whether something accepts a TCP connection at host:port within `timeoutMs`. */
export function reachable(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls `check` every 250 ms until it holds (true) or `deadlineMs` passes (false). */
export async function waitUntil(check, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export const isLocal = (host) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);

/** Whether `url` answers 2xx, and if not, why: the error envelope's details, the status, or no answer. */
export async function httpAnswer(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const text = await response.text();
    if (response.ok) return { ok: true };
    let details;
    try {
      details = JSON.parse(text).error?.details;
    } catch {
      details = undefined;
    }
    const why = Array.isArray(details)
      ? details.map((d) => `${d.field}: ${d.issue}`).join(', ')
      : `HTTP ${response.status}`;
    return { ok: false, why };
  } catch (error) {
    return { ok: false, why: `no answer (${error.cause?.code ?? error.name})` };
  }
}

/** `name 12s · name 3m 04s …`, each step until the next began (the last until now). */
export function stepTimes(steps) {
  const fmt = (ms) => {
    const s = Math.round(ms / 1000);
    return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  };
  const now = Date.now();
  return steps.map((s, i) => `${s.text} ${fmt((steps[i + 1]?.at ?? now) - s.at)}`).join(' · ');
}

/** Loopback when the app listens on every interface, else the configured host, for our own probes. */
export const probeHost = (host) =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
