import type { Queue } from 'bullmq';
import type { AppLogger } from '#libs/observability';
import { logConnectionErrors } from '#libs/redis';

/**
 * Routes every queue's connection errors to the JSON logger: a Queue without a listener prints raw stacks.
 * Made by a factory that takes the queues (see QueueModule), so the listeners are on as soon as the queues
 * exist, before Redis can have refused them once (during an outage at boot).
 */
export class QueueErrorsService {
  constructor(logger: AppLogger, queues: readonly Queue[]) {
    for (const queue of queues) logConnectionErrors(queue, logger, `queue:${queue.name}`);
  }
}
