import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, of } from 'rxjs';
import { ReadCache } from '#libs/database';
import {
  ConditionalGet,
  type ConditionalRequest,
  type RequestWithPrincipal,
  type SplitAnswer,
} from '#libs/http';

/**
 * A page-view read's answer kept as the bytes it was served as (with its ETag), beside the rows it was
 * made from in the read cache, and dropped with them when Postgres notifies a change of the merchant's.
 * While it is kept, the same read by the same kind of caller is answered from those bytes with its own
 * tracingId: no query validation, no read, no serialisation, no hash (a 304 then costs little more than
 * the credentials and the rate limit, which run first as ever, being guards).
 *
 * Only for a read whose answer is made from nothing but the caller, its URL and rows of the caller's
 * merchant in the tables whose triggers notify the read cache (users, accounts, account_balances:
 * migration `20261123030000_read_cache_notify`): then the answer can only change with a change that
 * drops it. A read that also asks the bank, the clock or another table must not use it.
 */
@Injectable()
export class KeptAnswerInterceptor implements NestInterceptor {
  constructor(private readonly cache: ReadCache) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & RequestWithPrincipal & ConditionalRequest>();
    const caller = request.principal;
    if (!caller || caller.kind === 'operator') return next.handle();
    const stamp = this.cache.stampOf(caller.merchantId);
    if (!stamp) return next.handle();
    // A session may read only its own user: its answers are kept apart from its merchant's.
    const key = `answer:${caller.kind === 'user-session' ? caller.userId : ''}:${request.url}`;
    const kept = this.cache.peek<SplitAnswer>(caller.merchantId, key);
    if (kept) {
      request.conditional = { etag: kept.etag };
      void http.getResponse<FastifyReply>().type('application/json; charset=utf-8');
      return of(Buffer.concat([kept.head, Buffer.from(String(request.id)), kept.tail]));
    }
    request.conditional = {
      served: (answer) =>
        this.cache.keep(
          caller.merchantId,
          key,
          // Copies: the parts are views of the bytes being sent.
          { head: Buffer.from(answer.head), tail: Buffer.from(answer.tail), etag: answer.etag },
          stamp,
          undefined,
          answer.head.length + answer.tail.length,
        ),
    };
    return next.handle();
  }
}

/** A conditional read whose answers are kept (see {@link KeptAnswerInterceptor} for which reads may be). */
export const KeptAnswer = () => applyDecorators(ConditionalGet(), UseInterceptors(KeptAnswerInterceptor));
