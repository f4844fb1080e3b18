// The types of the operator's calls (api.js `operator`), read off the routes' generated types
// (operator-api.d.ts): a path as the document spells it, its ids and query, its body and its answer.
import type { components, paths } from './generated/operator-api';

/** One of the document's schemas, by name: `Schema<'MerchantOutput'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** The paths with an operation for `M`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type Parameters<O> = O extends { parameters: infer X } ? X : never;
type Body<O> = O extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never]
    ? never
    : NonNullable<R> extends { content: { 'application/json': infer B } }
      ? B
      : never
  : never;

/** What a call sends besides its path: the path's ids, the query, the body; each only where it has one. */
export type Request<O> = ([NonNullable<Parameters<O>['path']>] extends [never]
  ? { path?: never }
  : { path: NonNullable<Parameters<O>['path']> }) &
  ([NonNullable<Parameters<O>['query']>] extends [never]
    ? { query?: never }
    : { query?: NonNullable<Parameters<O>['query']> }) &
  ([Body<O>] extends [never] ? { body?: never } : { body: Body<O> });

/** A request is required only when it has something required (an id, a body). */
type RequestArgument<O> =
  Partial<Request<O>> extends Request<O> ? [request?: Request<O>] : [request: Request<O>];

/** The envelope a success answers (`{ data, meta, links }`), undefined for a 204. */
export type Answer<O> = O extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer A } } }
    ? A
    : R extends { 201: { content: { 'application/json': infer A } } }
      ? A
      : undefined
  : never;

export type Call<M extends Method> = <P extends PathOf<M>>(
  path: P,
  ...request: RequestArgument<Operation<P, M>>
) => Promise<Answer<Operation<P, M>>>;

type Item<A> = A extends { data: readonly (infer I)[] } ? I : never;

/** One page of a list: its items and the next page's cursor (null on the last). */
export type Page<M extends 'get'> = <P extends PathOf<M>>(
  path: P,
  request: Request<Operation<P, M>>,
  cursor: string | undefined,
) => Promise<{ items: Item<Answer<Operation<P, M>>>[]; nextCursor: string | null }>;
