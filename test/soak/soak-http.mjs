// The soak's HTTP client: every request bounded by a timeout (a hang is a finding, not a wait), and every
// answer of the apps counted per route class, so the report can say which route answered 500 and when.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import { collectAnswer } from '../bench/http-helpers.mjs';

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
export const REQUEST_TIMEOUT_MS = 20_000;

/** One request: { status, headers, text, body } or { error: 'timeout' | 'refused' | 'reset' | message }. */
export function request(baseUrl, method, path, { headers = {}, body, form = false, timeoutMs } = {}) {
  return new Promise((resolve) => {
    const payload =
      body === undefined
        ? undefined
        : Buffer.from(form ? new URLSearchParams(body).toString() : JSON.stringify(body));
    const all = payload
      ? { ...headers, 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }
      : headers;
    let settled = false;
    const done = (value) => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    const req = http.request(new URL(path, baseUrl), { method, agent, headers: all }, (res) => {
      collectAnswer(res, done);
      res.on('error', (error) => done({ error: classify(error) }));
    });
    req.setTimeout(timeoutMs ?? REQUEST_TIMEOUT_MS, () => {
      done({ error: 'timeout' });
      req.destroy();
    });
    req.on('error', (error) => done({ error: classify(error) }));
    req.end(payload);
  });
}

function classify(error) {
  if (error.code === 'ECONNREFUSED') return 'refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up')
    return 'reset';
  return error.code ?? error.message;
}

/** `/v1/accounts/0190…/sync?x=1` → `/v1/accounts/:id/sync`: one row per route, not per resource. */
export function routeClass(method, path) {
  const bare = path.split('?')[0];
  return `${method} ${bare
    .split('/')
    .map((s) =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(s) || /^\d+$/.test(s) || /^(us|sk|pk)_/.test(s) ? ':id' : s,
    )
    .join('/')}`;
}

const OUTAGE_CODES = new Set(['SERVICE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);

/**
 * What is wrong with a 503, or false: it must carry `Retry-After` and, but for the bank callback's page
 * (HTML for a person) and an event stream's refusal (body not read), the JSON envelope with an outage code.
 */
function badOutageAnswer(result) {
  const retryAfter = Number(result.headers?.['retry-after']);
  if (!(retryAfter > 0)) return '503 without Retry-After';
  if (result.text === undefined || /^text\/html/.test(result.headers?.['content-type'] ?? '')) return false;
  const error = result.body?.error;
  if (!OUTAGE_CODES.has(error?.code) || error.status !== 503 || !error.tracingId)
    return '503 outside the envelope';
  return false;
}

/**
 * Counts of the apps' answers: per route class, per status (or error kind). An error on an api that the
 * soak was restarting at that moment is counted apart: refusing connections while down is not a bug.
 */
export class AnswerLog {
  byRoute = new Map();
  /** The 500s (and any 5xx but 503) and timeouts, with when and where, for the failure report. */
  bad = [];
  /** The chaos action under way, if any: which outage a bad answer belongs to. */
  during = null;

  /**
   * Counts the answer, and keeps it as bad when it is a 5xx other than 503, a 503 that does not say when
   * to come back in the envelope (docs/errors.md), a timeout, or a connection reset by an api that was
   * running (one being restarted may refuse or reset: not a bug).
   */
  record(app, method, path, result, { restarting = false } = {}) {
    const route = routeClass(method, path);
    let row = this.byRoute.get(route);
    if (!row) this.byRoute.set(route, (row = new Map()));
    const key = result.error ? (restarting ? `${result.error} (restarting)` : result.error) : result.status;
    row.set(key, (row.get(key) ?? 0) + 1);
    const serverError = result.status >= 500 && result.status !== 503;
    const why =
      (serverError && `${result.status}`) ||
      (result.status === 503 && badOutageAnswer(result)) ||
      (!restarting && (result.error === 'timeout' || result.error === 'reset') && result.error);
    if (why) {
      this.bad.push({
        at: new Date().toISOString(),
        during: this.during ?? 'no chaos action',
        app,
        route,
        path,
        status: why,
        body: result.text?.slice(0, 300),
      });
    }
  }

  totals() {
    const totals = new Map();
    for (const row of this.byRoute.values())
      for (const [key, n] of row) totals.set(key, (totals.get(key) ?? 0) + n);
    return totals;
  }

  toJSON() {
    return Object.fromEntries(
      [...this.byRoute].map(([route, row]) => [route, Object.fromEntries([...row].map(([k, n]) => [k, n]))]),
    );
  }
}
