import { z } from 'zod';
import type { TenantCaller } from '#libs/context';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../common/paging.js';

/** The keys of the paged lists whose key is not a UUID (the REST routes' own). */
export const CHANGE_NUMBER = /^[1-9][0-9]{0,17}$/;
export const ATTEMPT_NUMBER = /^[1-9]\d{0,8}$/;

export const anId = (what: string) => z.string().min(1).max(100).describe(what);
export const paging = {
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Page size, default ${DEFAULT_LIMIT}`),
  cursor: z.string().max(200).optional().describe('meta.nextCursor of the previous page'),
};
export type Paging = { limit?: number; cursor?: string };
export const pageOf = (args: Paging) => ({ limit: args.limit ?? DEFAULT_LIMIT, cursor: args.cursor });

/** One read-only tool: its input's shape and the REST route's read it answers with, for one caller. */
export interface Tool {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** The REST route whose documented answer is the tool's output schema, as `GET /v1/syncs/{syncId}`. */
  route: string;
  read(caller: TenantCaller, args: Record<string, unknown>): Promise<object>;
}
