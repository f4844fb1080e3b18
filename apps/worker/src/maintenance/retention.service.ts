import { Injectable } from '@nestjs/common';
import { AuditTrailService } from '#libs/domain/audit';
import { ConnectFunnelService } from '#libs/domain/consents';
import { EventsRetentionService } from '#libs/domain/events';
import { InboxRetentionService } from '#libs/domain/inbox';
import { ConsoleSessionRepository } from '#libs/domain/merchants';
import { TransactionChangesRetentionService } from '#libs/domain/sync';
import { UpstreamCallsService } from '#libs/domain/upstream-calls';

/**
 * The retention job's work, apart from the maintenance queue's other jobs: every store that keeps history
 * prunes what is past its retention, in turn, and the job's result counts each.
 */
@Injectable()
export class RetentionService {
  constructor(
    private readonly eventsRetention: EventsRetentionService,
    private readonly inboxRetention: InboxRetentionService,
    private readonly audit: AuditTrailService,
    private readonly transactionChanges: TransactionChangesRetentionService,
    private readonly consoleSessions: ConsoleSessionRepository,
    private readonly upstreamCalls: UpstreamCallsService,
    private readonly connectFunnel: ConnectFunnelService,
  ) {}

  async prune() {
    return {
      ...(await this.eventsRetention.prune()),
      ...(await this.inboxRetention.prune()),
      ...(await this.audit.prune()),
      ...(await this.transactionChanges.prune()),
      ...(await this.upstreamCalls.prune()),
      ...(await this.connectFunnel.prune()),
      consoleSessions: await this.consoleSessions.pruneExpired(),
    };
  }
}
