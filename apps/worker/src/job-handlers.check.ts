import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { checkJobHandlers, JobProcessor, type QueueName } from '#libs/queue';

/** The worker's processors, one per queue it serves. */
export function discoverJobProcessors(discovery: DiscoveryService): JobProcessor<QueueName>[] {
  return discovery
    .getProviders()
    .map((wrapper) => wrapper.instance as unknown)
    .filter((instance): instance is JobProcessor<QueueName> => instance instanceof JobProcessor);
}

/**
 * Refuses to start a worker in which a job of the catalogue has no handler (it would wait forever) or a
 * processor handles a job of another queue. Runs before the processors start consuming.
 */
@Injectable()
export class JobHandlersCheck implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const problems = checkJobHandlers(discoverJobProcessors(this.discovery));
    if (problems.length > 0) {
      throw new Error(`The job catalogue and the worker's handlers disagree:\n  ${problems.join('\n  ')}`);
    }
  }
}
