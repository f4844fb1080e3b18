import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ReplicaReads } from '#libs/database';
import type { RequestWithPrincipal } from '#libs/http';
import type { AppLogger } from '#libs/observability';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With a read replica, a merchant reads its own writes: before the answer to any request of theirs that
 * may have written leaves, its position in the primary's WAL is kept as the merchant's fence
 * (ReplicaReads.fence), so its next reads wait for the replica to replay it or go to the primary. Refused
 * and failed requests are fenced too: a failure may follow a write. Not registered without a replica;
 * with one, the api follows the replica's position from boot.
 */
export function registerWriteFences(fastify: FastifyInstance, reads: ReplicaReads, logger: AppLogger): void {
  if (!reads.configured) return;
  reads.startPolling();
  fastify.addHook(
    'onSend',
    async (request: FastifyRequest & RequestWithPrincipal, _reply: FastifyReply, payload: unknown) => {
      const caller = request.principal;
      if (READS.has(request.method) || !caller || caller.kind === 'operator') return payload;
      await reads.fence([caller.merchantId]).catch((err: unknown) =>
        // Redis or Postgres away: reads then go to the primary anyway (no fence can be read, or the replica
        // cannot follow), so the answer still goes out.
        logger.warn({ err, merchantId: caller.merchantId }, 'read replica: write fence not kept'),
      );
      return payload;
    },
  );
}
