import type { AppConfig } from '#libs/config';
import { eventually } from '#libs/testing';

export interface SandboxResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  body: T;
}

export interface SandboxCallOptions {
  body?: unknown;
  /** Raw body, sent as is (with the content type below). */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** `root` (default): the seeded root application; `none`: no Authorization header; or explicit credentials. */
  auth?: 'root' | 'none' | { id: string; secret: string };
  consent?: string;
  subApplication?: string;
  /** Sends `x-yapily-api-version: 2.0-ALPHA`. */
  v2?: boolean;
}

/** A thin HTTP client for tests that drive the sandbox exactly as the upstream's clients would. */
export class SandboxHttp {
  /**
   * `baseUrl` and `config` may be functions so a client can exist before the sandbox it calls has a port
   * (or the stack its configuration).
   */
  constructor(
    private readonly base: string | (() => string),
    private readonly configOf: AppConfig | (() => AppConfig),
  ) {}

  get baseUrl(): string {
    return typeof this.base === 'string' ? this.base : this.base();
  }

  private get config(): AppConfig {
    return typeof this.configOf === 'function' ? this.configOf() : this.configOf;
  }

  basic(id = this.config.upstream.applicationId, secret = this.config.upstream.applicationSecret): string {
    return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }

  async call<T = any>(
    method: string,
    path: string,
    options: SandboxCallOptions = {},
  ): Promise<SandboxResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth ?? 'root';
    if (auth === 'root') headers.authorization = this.basic();
    else if (auth !== 'none') headers.authorization = this.basic(auth.id, auth.secret);
    if (options.consent) headers.consent = options.consent;
    if (options.subApplication) headers['sub-application'] = options.subApplication;
    if (options.v2) headers['x-yapily-api-version'] = '2.0-ALPHA';
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  /**
   * Injects one fault rule (the control API's shape) and answers a wait for its first hit: for a test
   * that must act while the held request is in flight.
   */
  async holdOnce(rule: Record<string, unknown>): Promise<{ hit: () => Promise<unknown> }> {
    const created = await this.admin<{ data: { id: string } }>('POST', '/faults', { ...rule, count: 1 });
    if (created.status !== 201) throw new Error(`fault rule refused: ${created.status}`);
    const id = created.body.data.id;
    return {
      hit: () =>
        eventually(`the request held by fault ${String(rule.path)}`, async () => {
          const rules = (await this.admin<{ data: { id: string; hits: number }[] }>('GET', '/faults')).body
            .data;
          return rules.find((r) => r.id === id)?.hits === 1 || undefined;
        }),
    };
  }

  /**
   * Runs `body` while the sandbox bank `institutionId` has `quirks` on, and turns them off again however
   * `body` ends: a quirk is the sandbox's, seen by every test that shares it.
   */
  async withQuirks<T>(
    quirks: Record<string, true>,
    body: () => Promise<T>,
    institutionId = 'sandbox-redirect',
  ): Promise<T> {
    const path = `/institutions/${institutionId}/quirks`;
    const on = await this.admin('PUT', path, quirks);
    if (on.status !== 200) throw new Error(`quirks refused: ${on.status} ${JSON.stringify(on.body)}`);
    try {
      return await body();
    } finally {
      await this.admin('PUT', path, Object.fromEntries(Object.keys(quirks).map((name) => [name, false])));
    }
  }

  /** The control API, with the admin bearer token. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<SandboxResponse<T>> {
    return this.call<T>(method, `/sandbox/admin${path}`, {
      auth: 'none',
      body,
      headers: { authorization: `Bearer ${this.config.sandbox.adminToken}` },
    });
  }
}
