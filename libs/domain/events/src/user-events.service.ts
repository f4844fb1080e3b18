import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { assertActsFor, type TenantCaller } from '#libs/context';
import { UserRepository } from '#libs/domain/users';
import { DomainError, ErrorCode } from '#libs/errors';
import { MerchantEventRepository, type StreamedEvent } from './merchant-event.repository.js';
import { OutboxRelayStateRepository } from './outbox-relay-state.repository.js';

/** A user's event stream: where it starts, and what follows a position. */
@Injectable()
export class UserEventsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UserRepository,
    private readonly events: MerchantEventRepository,
    private readonly relayState: OutboxRelayStateRepository,
  ) {}

  /**
   * Checks the caller may follow the user's events and returns the position to start after: the given
   * Last-Event-ID (a stream position), or the newest event now when the stream is new. A position from
   * before what retention kept is refused: resuming there could skip events without saying so.
   */
  async open(caller: TenantCaller, userId: string, lastEventId: string | undefined): Promise<string> {
    assertActsFor(caller, userId);
    const user = await this.users.findForSession(caller.merchantId, userId);
    if (!user) throw new DomainError(ErrorCode.NOT_FOUND, 'User not found.');
    if (lastEventId !== undefined) {
      if (!/^\d{1,18}$/.test(lastEventId)) {
        throw new DomainError(
          ErrorCode.VALIDATION_FAILED,
          'Last-Event-ID must be an event id of this stream.',
          {
            details: [{ field: 'Last-Event-ID', issue: 'must be a stream position (digits)' }],
          },
        );
      }
      // Retention removed events after this position: some of this user's may be among them.
      // 0 asks for everything still kept, knowingly.
      if (lastEventId !== '0' && BigInt(lastEventId) < (await this.relayState.prunedThrough())) {
        throw new DomainError(
          ErrorCode.EVENTS_EXPIRED,
          `Events after ${lastEventId} are no longer kept (events are kept ${this.config.retention.eventDays} days). Read the current state from the API, then open the stream without Last-Event-ID.`,
        );
      }
      return lastEventId;
    }
    return this.events.latestStreamSeq(caller.merchantId, userId);
  }

  /** Events an `after` call answers at most: a shorter page means the stream has caught up. */
  get pageSize(): number {
    return this.config.events.ssePageSize;
  }

  /** Up to a page of events after `position`, in stream order (numeric, oldest first). */
  after(caller: TenantCaller, userId: string, position: string): Promise<StreamedEvent[]> {
    assertActsFor(caller, userId);
    return this.events.streamForUser(caller.merchantId, userId, position, this.pageSize);
  }
}
