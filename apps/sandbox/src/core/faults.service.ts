import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ConsentTokenCodec } from './consent-token.js';
import { tracingIdOf } from './envelope.js';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxError, STATUS_TEXT, webhookCodes } from './sandbox-error.js';

/**
 * Fault injection for resilience tests: a rule matches requests by method and path pattern and answers
 * some of them with an error status, a delay, or a dropped connection. "Some" is deterministic: `rate`
 * 0.25 hits exactly every fourth matching request, and `count` stops the rule after that many hits.
 */
export interface FaultRuleInput {
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Path pattern: `*` matches one path segment, `**` any rest; or a regular expression written /…/. */
  path: string;
  /** Only calls made under a consent at this institution (its `consent` header names it). */
  institution?: string;
  /**
   * Only calls carrying this header (lower case), with this value when one is given. With no effect
   * named, a rule only counts (`matched`): how a test sees what its client sent.
   */
  header?: { name: string; value?: string };
  /** Answer with this status (500, 424, 429, 503, …) in the upstream's error shape. */
  status?: number;
  /**
   * With a 5xx: whom the error blames, `YAPILY` (the service itself, the default) or `INSTITUTION` (the
   * bank, as the upstream reports a bank's failure). A 424 always blames the institution.
   */
  source?: 'YAPILY' | 'INSTITUTION';
  /** With 429 or 503: the Retry-After header, in seconds. */
  retryAfterSeconds?: number;
  /** Wait this long before answering (or before failing). */
  latencyMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
  /** Share of matching requests to hit, (0, 1]; 1 when absent. */
  rate?: number;
  /** Stop after this many hits; unlimited when absent. */
  count?: number;
  /** Let this many matching requests through before the rule starts (the n+1th is the first it may hit). */
  after?: number;
}

export interface FaultRule extends FaultRuleInput {
  id: string;
  matched: number;
  hits: number;
}

function carries(headers: FastifyRequest['headers'], { name, value }: { name: string; value?: string }) {
  const sent = headers[name];
  return sent !== undefined && (value === undefined || sent === value);
}

function compile(pattern: string): RegExp {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/'))
    return new RegExp(pattern.slice(1, -1));
  const escaped = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

@Injectable()
export class FaultsService {
  private rules: (FaultRule & { regex: RegExp; skipped: number })[] = [];

  /** Reads the institution a call's consent token names, for rules narrowed to one bank. */
  private readonly tokens: ConsentTokenCodec;

  constructor(@Inject(APP_CONFIG) config: AppConfig, resets: ResetRegistryService) {
    this.tokens = new ConsentTokenCodec(config.sandbox.adminToken);
    resets.register(() => {
      this.rules = [];
    });
  }

  add(input: FaultRuleInput): FaultRule {
    const rule = { ...input, id: randomUUID(), matched: 0, hits: 0, skipped: 0, regex: compile(input.path) };
    this.rules.push(rule);
    return this.view(rule);
  }

  list(): FaultRule[] {
    return this.rules.map((r) => this.view(r));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  private institutionOf(consent: unknown): string | undefined {
    return typeof consent === 'string' ? this.tokens.verify(consent)?.ins : undefined;
  }

  /** The first rule that decides to hit this request, counting it. */
  private decide(method: string, path: string, headers: FastifyRequest['headers']): FaultRule | undefined {
    for (const rule of this.rules) {
      if (rule.method && rule.method.toUpperCase() !== method) continue;
      if (!rule.regex.test(path)) continue;
      if (rule.institution !== undefined && this.institutionOf(headers.consent) !== rule.institution)
        continue;
      if (rule.header && !carries(headers, rule.header)) continue;
      if (rule.count !== undefined && rule.hits >= rule.count) continue;
      if (rule.after !== undefined && rule.skipped < rule.after) {
        rule.skipped += 1;
        continue;
      }
      const rate = rule.rate ?? 1;
      const before = Math.floor(rule.matched * rate);
      rule.matched += 1;
      if (Math.floor(rule.matched * rate) === before) continue;
      rule.hits += 1;
      return rule;
    }
    return undefined;
  }

  /** Fastify onRequest hook: runs before routing, so it can fault any upstream route. */
  readonly hook = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.url.split('?')[0];
    if (path.startsWith('/sandbox/') || path === '/health') return;
    const rule = this.decide(request.method, path, request.headers);
    if (!rule) return;
    if (rule.latencyMs) await delay(rule.latencyMs);
    if (rule.drop) {
      request.raw.socket.destroy();
      return reply.hijack();
    }
    if (!rule.status) return;
    const error = webhookCodes(
      path,
      rule.status === 424
        ? SandboxError.institution('Injected fault: the institution failed', 502)
        : rule.status === 500
          ? SandboxError.internal('Injected fault 500', rule.source)
          : new SandboxError(
              rule.status,
              `Injected fault ${rule.status}`,
              [
                {
                  type: STATUS_TEXT[rule.status] ?? 'ERROR',
                  code: STATUS_TEXT[rule.status] ?? rule.status,
                  message: `Injected fault ${rule.status}`,
                },
              ],
              { source: rule.source },
            ),
    );
    if (rule.retryAfterSeconds !== undefined)
      void reply.header('retry-after', String(rule.retryAfterSeconds));
    return reply
      .status(rule.status)
      .type('application/json;charset=UTF-8')
      .send(renderError(error, tracingIdOf(request)));
  };

  private view({
    regex: _regex,
    skipped: _skipped,
    ...rule
  }: FaultRule & { regex: RegExp; skipped: number }): FaultRule {
    return rule;
  }
}

/** The upstream's error body for a SandboxError, in the shape the error asks for (upstream spec §7.1). */
export function renderError(error: SandboxError, tracingId: string): unknown {
  const statusText =
    STATUS_TEXT[error.status] ?? (error.status >= 500 ? 'INTERNAL SERVER ERROR' : 'BAD_REQUEST');
  switch (error.options.shape) {
    case 'minimal':
      return { error: { code: error.status, status: statusText, message: error.message } };
    case 'fieldValidation':
      return { errors: error.options.fieldErrors ?? [] };
    default:
      return {
        error: {
          tracingId,
          code: error.status,
          status: statusText,
          supportUrl: 'https://sandbox.invalid/support',
          source: error.options.source ?? 'YAPILY',
          issues: error.issues.map((issue) => ({ ...issue, institutionError: issue.institutionError })),
          ...(error.options.institutionError ? { institutionError: error.options.institutionError } : {}),
        },
      };
  }
}

/** Answers an error as the upstream does: its status and headers, and its body in the shape it asks for. */
export function replyWithError(reply: FastifyReply, error: SandboxError, tracingId: string): void {
  void reply
    .status(error.status)
    .headers(error.options.headers ?? {})
    .type('application/json;charset=UTF-8')
    .send(renderError(error, tracingId));
}
