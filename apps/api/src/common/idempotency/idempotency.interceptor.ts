import { createHash } from 'node:crypto';
import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { type MerchantId, tenantNamedByOperator, tenantOf } from '#libs/context';
import { dependencyFailureOf, DomainError, ErrorCode, retryWhileUnavailable } from '#libs/errors';
import type { RequestWithPrincipal } from '#libs/http';
import { isUuid } from '#libs/ids';
import { type AppLogger, LOGGER } from '#libs/observability';
import { HeldIdempotencyClaims } from './held-idempotency-claims.js';
import { IdempotencyRepository } from './idempotency.repository.js';

export const IDEMPOTENT_METADATA = 'bff:idempotent';

export interface IdempotentOptions {
  /**
   * Scope keys by the merchant named in this route parameter instead of the caller's merchant (operator
   * routes act on a merchant without being one).
   */
  merchantParam?: string;
  /**
   * Top-level body fields left out of the stored request fingerprint, for secrets (a bank password must
   * not be kept even as a hash); a replay with other values for them still counts as the same request.
   */
  excludeFromFingerprint?: readonly string[];
  /**
   * Dotted paths of the answer that carry a secret shown once (`data.key`): left out of the stored answer,
   * so a replay returns the record without the secret, and no secret ever sits in `idempotency_keys`.
   */
  secretFields?: readonly string[];
}

/** A copy of `body` without the fields at `paths`; the answer itself goes to the caller untouched. */
export function withoutSecrets(body: unknown, paths: readonly string[] = []): unknown {
  if (paths.length === 0) return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const path of paths) {
    const keys = path.split('.');
    let node: unknown = copy;
    for (const key of keys.slice(0, -1)) node = (node as Record<string, unknown> | undefined)?.[key];
    if (node !== null && typeof node === 'object') delete (node as Record<string, unknown>)[keys.at(-1)!];
  }
  return copy;
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
const TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this whose owner never finished is taken to be abandoned (its process died). */
const STALE_LOCK_MS = 60_000;

/** A replay while the first request runs: the client tries again shortly (Retry-After: 1). */
const inProgress = () =>
  new DomainError(ErrorCode.CONFLICT, 'A request with this Idempotency-Key is in progress; retry shortly.', {
    retryAfterSeconds: 1,
  });

/** Key order must not matter: `{a,b}` and `{b,a}` are the same request. */
function fingerprinted(body: unknown, exclude: readonly string[] = []): unknown {
  if (exclude.length === 0 || typeof body !== 'object' || body === null || Array.isArray(body))
    return body ?? null;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !exclude.includes(key)));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `Idempotency-Key` for creating POSTs (see {@link Idempotent}). The first request claims the key and
 * its successful answer is stored; a replay with the same body gets that answer again, another body
 * 409 IDEMPOTENCY_MISMATCH, and a replay while the first is still running 409 CONFLICT (the client
 * retries; waiting here would hold a connection for an unknown time). Errors are not stored: the claim
 * is released so the request can be retried. Keys live 24 h. A request the route's pipe refuses (interceptors run
 * before pipes) fails inside the claim, so its claim is released like any error's and nothing is kept; a
 * merchant scope that is not a merchant id answers 404 before any claim.
 */
/**
 * The merchant an idempotency key is scoped to: the caller's, or for the operator the merchant its route
 * names. Checked here, before the route's pipes run, so a malformed id is a 404 rather than a cast error.
 */
function scopeOf(request: FastifyRequest & RequestWithPrincipal, options: IdempotentOptions): MerchantId {
  const params = request.params as Record<string, string | undefined>;
  const caller = request.principal;
  const named = options.merchantParam ? params[options.merchantParam] : undefined;
  const merchantId =
    caller?.kind === 'operator'
      ? named && tenantNamedByOperator(caller, named)
      : caller && !options.merchantParam
        ? tenantOf(caller)
        : undefined;
  if (!merchantId) throw new Error('@Idempotent() route has no merchant to scope its keys by');
  if (!isUuid(merchantId)) throw new DomainError(ErrorCode.NOT_FOUND, 'Merchant not found.');
  return merchantId;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyRepository,
    private readonly held: HeldIdempotencyClaims,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(this.run(context, next));
  }

  private async run(context: ExecutionContext, next: CallHandler): Promise<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithPrincipal>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return lastValueFrom(next.handle());
    if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        {
          details: [{ field: 'Idempotency-Key', issue: 'must be 1 to 255 visible ASCII characters' }],
        },
      );
    }
    const options = this.reflector.get<IdempotentOptions>(IDEMPOTENT_METADATA, context.getHandler()) ?? {};
    const merchantId = scopeOf(request, options);
    const requestHash = createHash('sha256')
      .update(
        `${request.method} ${request.url}\n${canonical(fingerprinted(request.body, options.excludeFromFingerprint))}`,
      )
      .digest('hex');
    const now = new Date();
    const claim = {
      merchantId,
      key: header,
      method: request.method,
      path: request.routeOptions.url ?? request.url,
      requestHash,
      expiresAt: new Date(now.getTime() + TTL_MS),
    };
    const earlier = await this.claimOrReplay(claim, now);
    if (earlier) {
      void reply.status(earlier.status).header('idempotent-replayed', 'true');
      return earlier.body;
    }

    const claimed = { merchantId, key: header, lockedAt: now };
    this.held.add(claimed);
    try {
      const body: unknown = await lastValueFrom(next.handle());
      const status =
        this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
        (request.method === 'POST' ? 201 : 200);
      const stored = withoutSecrets(body ?? null, options.secretFields);
      await this.keys.complete(merchantId, header, now, status, stored, new Date());
      return body;
    } catch (error) {
      // Released by this request only while it still holds the claim (not already by a stop).
      if (this.held.has(claimed)) await this.release(merchantId, header, now);
      throw error;
    } finally {
      this.held.delete(claimed);
    }
  }

  /**
   * Claims the key for this request (an expired claim is replaced, a stale lock taken over); or the
   * earlier answer to replay; or a refusal: the key in progress, or used with another request.
   */
  private async claimOrReplay(
    claim: Parameters<IdempotencyRepository['claim']>[0] & { merchantId: MerchantId },
    now: Date,
  ): Promise<{ status: number; body: unknown } | undefined> {
    const { merchantId, key } = claim;
    if (await this.keys.claim(claim, now)) return undefined;
    let row = await this.keys.find(merchantId, key);
    if (row && row.expiresAt <= now) {
      await this.keys.deleteExpired(merchantId, key, now);
      if (await this.keys.claim(claim, now)) return undefined;
      row = await this.keys.find(merchantId, key);
    }
    if (!row) throw inProgress();
    if (row.requestHash !== claim.requestHash) {
      throw new DomainError(
        ErrorCode.IDEMPOTENCY_MISMATCH,
        'This Idempotency-Key was used with a different request.',
      );
    }
    if (row.completedAt && row.responseStatus !== null)
      return { status: row.responseStatus, body: row.responseBody };
    const stale = row.lockedAt && now.getTime() - row.lockedAt.getTime() > STALE_LOCK_MS;
    if (!stale || !(await this.keys.takeOver(row, now))) throw inProgress();
    return undefined;
  }

  /**
   * Releases the claim. When the database is what failed, the release cannot be made now either: it is
   * tried again every second until it lands or the claim would count as stale anyway, so a client retrying
   * with the same key once Postgres is back is not told "in progress" for the rest of a minute.
   */
  private async release(merchantId: MerchantId, key: string, lockedAt: Date): Promise<void> {
    try {
      await this.keys.release(merchantId, key, lockedAt);
    } catch (releaseError) {
      if (!dependencyFailureOf(releaseError)) throw releaseError;
      retryWhileUnavailable(() => this.keys.release(merchantId, key, lockedAt), {
        giveUpAt: lockedAt.getTime() + STALE_LOCK_MS,
        onGiveUp: (error) =>
          this.logger.warn({ err: error }, 'idempotency claim not released; it goes stale instead'),
      });
    }
  }
}
