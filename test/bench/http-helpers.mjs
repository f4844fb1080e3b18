// The bench's one-off HTTP helpers: a keep-alive setup request, a status check, and a bounded parallel loop.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import { BenchFailure } from './bench-failure.mjs';

const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One setup request (keep-alive, bounded): status, headers and the parsed JSON body. */
export function call(baseUrl, method, path, headers = {}, body, { form = false } = {}) {
  return new Promise((resolve, reject) => {
    const payload =
      body === undefined
        ? undefined
        : Buffer.from(form ? new URLSearchParams(body).toString() : JSON.stringify(body));
    const contentType = form ? 'application/x-www-form-urlencoded' : 'application/json';
    const req = http.request(
      new URL(path, baseUrl),
      {
        method,
        agent: setupAgent,
        headers: payload ? { ...headers, 'content-type': contentType } : headers,
      },
      (res) => {
        collectAnswer(res, resolve);
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no response within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export async function expectStatus(label, promise, status = 200) {
  const res = await promise;
  if (res.status !== status) {
    throw new BenchFailure(`${label}: HTTP ${res.status} (expected ${status}): ${res.text.slice(0, 300)}`);
  }
  return res;
}

/** Runs `task(i)` for i in [0, count) with at most `width` at a time. */
export async function inParallel(count, width, task) {
  let next = 0;
  const results = new Array(count);
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/**
 * Reads a response to its end, then calls `onEnd` with its status, headers, text and JSON (undefined when
 * the text is empty or not JSON). The bench's helpers and the soak's client both read answers so.
 */
export function collectAnswer(res, onEnd) {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    onEnd({ status: res.statusCode, headers: res.headers, text, body });
  });
}
