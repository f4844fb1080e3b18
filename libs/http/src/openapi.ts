import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { currentRequestId } from '#libs/context';
import { ErrorCode } from '#libs/errors';
import { PartedAnswer } from './parted-answer.js';

/*
 * The answer envelope and the decorators that document it. Kept whole: they share `Served<T>`, so what a
 * route is documented to answer and what it answers cannot part.
 */

/** Security scheme names of the OpenAPI document, one per bearer kind (docs/api-guide.md, "Authentication, rate limits, CORS, idempotency, docs"). */
export const SECURITY_SCHEMES = {
  operator: 'operator',
  merchant: 'merchantApiKey',
  userSession: 'userSession',
} as const;

export class ApiErrorDetail {
  @ApiProperty({ example: 'limit' }) field: string;
  @ApiProperty({ example: 'must be between 1 and 1000' }) issue: string;
}

export class ApiUpstreamErrorInfo {
  @ApiProperty({ example: 424 }) status: number;
  @ApiPropertyOptional({ example: 'INSTITUTION' }) source?: string;
  @ApiPropertyOptional() tracingId?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) institutionError?: unknown;
}

export class ApiErrorBody {
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode' }) code: ErrorCode;
  @ApiProperty({ example: 400, description: 'Always the HTTP status of the response' }) status: number;
  @ApiProperty() message: string;
  @ApiProperty({ description: 'The request id (x-request-id)' }) tracingId: string;
  @ApiPropertyOptional({ type: [ApiErrorDetail] }) details?: ApiErrorDetail[];
  @ApiPropertyOptional({ type: ApiUpstreamErrorInfo }) upstream?: ApiUpstreamErrorInfo;
  @ApiPropertyOptional({
    type: 'integer',
    example: 5,
    description:
      'Seconds to wait before trying again, as the Retry-After header says: on every 429 and 503, absent on other errors',
  })
  retryAfterSeconds?: number;
}

/** The error envelope every 4xx and 5xx leaves in. */
export class ApiErrorResponse {
  @ApiProperty({ type: ApiErrorBody }) error: ApiErrorBody;
}

export class ApiMeta {
  @ApiProperty() tracingId: string;
}

export class ApiListMeta extends ApiMeta {
  @ApiProperty({ description: 'Items on this page' }) count: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Opaque cursor of the next page; null on the last',
  })
  nextCursor: string | null;
}

/** The meta of an answer that counts what `data` holds without paging it. */
export class ApiCountMeta extends ApiMeta {
  @ApiProperty({ description: 'How many items `data` holds' }) count: number;
}

export class ApiLinks {
  @ApiProperty({ description: 'The next page' }) next: string;
}

const envelopes = new Map<string, Type<unknown>>();

/**
 * The success envelope `{ data, meta, links? }` around a model, as a named class so the document shows
 * one schema per response. Memoised: swagger keys schemas by class name.
 */
export function ApiEnvelope(
  model: Type<unknown>,
  options: { list?: boolean; meta?: Type<ApiMeta> } = {},
): Type<unknown> {
  const meta = options.meta ?? (options.list ? ApiListMeta : ApiMeta);
  const metaName = options.meta ? options.meta.name.replace(/^Api/, '').replace(/Meta$/, '') : '';
  const name = `${model.name}${options.list ? 'List' : ''}${metaName}Envelope`;
  const known = envelopes.get(name);
  if (known) return known;
  class Envelope {
    @ApiProperty({ type: model, isArray: options.list ?? false }) data: unknown;
    @ApiProperty({ type: meta }) meta: ApiMeta;
    @ApiPropertyOptional({
      type: ApiLinks,
      description: 'Absent when there is no next page (so always, for one resource)',
    })
    links?: ApiLinks;
  }
  Object.defineProperty(Envelope, 'name', { value: name });
  envelopes.set(name, Envelope);
  return Envelope;
}

/** What a route answers: its output model in the success envelope (what `envelope` builds). */
export interface Served<T> {
  data: T;
  meta: { tracingId: string } & Record<string, unknown>;
  links?: { next: string };
}

declare const answer: unique symbol;

/** `Served<T>` already written as JSON, in parts or as one text (see `envelopeBytes`). */
export type ServedBytes<T> = (PartedAnswer | string) & { readonly [answer]: Served<T> };

type Handler<T> = (...args: never[]) => Served<T> | ServedBytes<T> | Promise<Served<T> | ServedBytes<T>>;

/** What a handler of type `H` answers in the envelope. */
type AnswerOf<H> = H extends (...args: never[]) => infer R
  ? Awaited<R> extends Served<infer V> | ServedBytes<infer V>
    ? V
    : never
  : never;

/**
 * The fields of `V` (a handler's view) that the documented `T` does not have, at any depth, by name: what
 * would be served and documented nowhere. A class field typed `unknown` documents anything below it.
 */
export type Undocumented<V, T> = unknown extends T
  ? never
  : V extends readonly (infer VE)[]
    ? T extends readonly (infer TE)[]
      ? Undocumented<VE, TE>
      : never
    : V extends Date
      ? never
      : V extends object
        ? NonNullable<T> extends object
          ? {
              [K in keyof V]-?: K extends keyof NonNullable<T> ? Undocumented<V[K], NonNullable<T>[K]> : K;
            }[keyof V]
          : never
        : never;

/** A method decorator that fits only a handler answering `T` in the envelope, no field undocumented. */
export type AnswerDecorator<T> = <H extends Handler<T>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H> &
    ([Undocumented<AnswerOf<H>, T>] extends [never]
      ? unknown
      : { 'the view serves fields its class does not document': Undocumented<AnswerOf<H>, T> }),
) => void;

interface AnswerOptions {
  meta?: Type<ApiMeta>;
  description?: string;
}

/**
 * A route's success answer: `model` in the envelope, documented (so served by the response schema made
 * from the same class, and typed so in the SDK) and held by the compiler to what the handler returns.
 * A handler whose view lacks a field the class requires, or types it otherwise, does not compile.
 */
export function ApiAnswer<T>(
  status: 200 | 201 | 202,
  model: Type<T>,
  options: AnswerOptions & { list: true },
): AnswerDecorator<T[]>;
export function ApiAnswer<T>(
  status: 200 | 201 | 202,
  model: Type<T>,
  options?: AnswerOptions & { list?: false },
): AnswerDecorator<T>;
export function ApiAnswer(
  status: 200 | 201 | 202,
  model: Type<unknown>,
  options: AnswerOptions & { list?: boolean } = {},
): MethodDecorator {
  const { description, ...shape } = options;
  return ApiResponse({ status, type: ApiEnvelope(model, shape), description });
}

/**
 * A 200 that is one `model` or a page of them, as `GET /v1/users` with and without `?reference=`: the
 * two envelopes, each typed, as `oneOf` (told apart by `data`: an object or an array). The handler is
 * held to answering `T` or `T[]` (`Undocumented` cannot follow a union).
 */
export function ApiOneOrPageAnswer<T>(
  model: Type<T>,
  description: string,
): <H extends Handler<T | T[]>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void {
  const one = ApiEnvelope(model);
  const page = ApiEnvelope(model, { list: true });
  return applyDecorators(
    ApiExtraModels(one, page),
    ApiResponse({
      status: 200,
      description,
      schema: { oneOf: [{ $ref: getSchemaPath(one) }, { $ref: getSchemaPath(page) }] },
    }),
  );
}

/**
 * The running request's id, for `meta.tracingId`. Every route handler runs in a request context (the HTTP
 * app enters it before handlers); an answer built outside one is a wiring bug, so it fails loudly.
 */
function tracingId(): string {
  const id = currentRequestId();
  if (id === undefined) throw new Error('an envelope built outside a request context');
  return id;
}

/** `{ data, meta: { tracingId, … }, links? }` of docs/api-guide.md, `tracingId` the running request's id. */
export function envelope<T>(
  data: T,
  meta: Record<string, unknown> = {},
  links?: { next: string },
): Served<T> {
  return { data, meta: { tracingId: tracingId(), ...meta }, ...(links ? { links } : {}) };
}

const DATA_OPEN = Buffer.from('{"data":[');

/** What follows the items in `envelope`'s JSON: the end of `data`, then `meta` and `links`. */
function afterItems(meta: Record<string, unknown>, links?: { next: string }): string {
  return `],${JSON.stringify({ meta: { tracingId: tracingId(), ...meta }, ...(links ? { links } : {}) }).slice(1)}`;
}

/**
 * The same envelope as `envelope`, around items that already are JSON (records stored in the shape
 * served), joined with commas: nothing is parsed only to be printed again. Kept bytes (a stored page served
 * again) are sent as they are, never copied (a parted answer); text is one text, written by Node as it is.
 * `T` names what the records are, which the caller knows and the text cannot say: the route's `ApiAnswer`
 * then holds it to the documented model. Send it with {@link sendServedBytes}.
 */
export function envelopeBytes<T>(
  joinedItems: Buffer,
  meta?: Record<string, unknown>,
  links?: { next: string },
): ServedBytes<T[]> & PartedAnswer;
export function envelopeBytes<T>(
  joinedItems: string,
  meta?: Record<string, unknown>,
  links?: { next: string },
): ServedBytes<T[]> & string;
export function envelopeBytes<T>(
  joinedItems: Buffer | string,
  meta?: Record<string, unknown>,
  links?: { next: string },
): ServedBytes<T[]>;
export function envelopeBytes<T>(
  joinedItems: Buffer | string,
  meta: Record<string, unknown> = {},
  links?: { next: string },
): ServedBytes<T[]> {
  if (typeof joinedItems === 'string')
    return `{"data":[${joinedItems}${afterItems(meta, links)}` as ServedBytes<T[]>;
  return new PartedAnswer([DATA_OPEN, joinedItems], Buffer.from(afterItems(meta, links))) as ServedBytes<T[]>;
}

/**
 * Sends an `envelopeBytes` answer through Fastify (its hooks, the conditional tag, its length) and
 * returns it, for `ApiAnswer` to check: from a handler that takes the reply itself (`@Res()`, not
 * passthrough), since Nest would read a stream returned to it chunk by chunk into another one.
 */
export function sendServedBytes<T>(reply: FastifyReply, answer: ServedBytes<T>): ServedBytes<T> {
  void reply.type('application/json; charset=utf-8').send(answer);
  return answer;
}
