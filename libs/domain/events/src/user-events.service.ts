import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { assertActsFor, type TenantCaller, tenantOf } from '#libs/context';
import { UserRepository } from '#libs/domain/users';
import { DomainError, ErrorCode, merchantDisabled } from '#libs/errors';
import {
  MerchantEventRepository,
  type StreamedEvent,
  type StreamRefusal,
} from './merchant-event.repository.js';
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
    const user = await this.users.findForSession(tenantOf(caller), userId);
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
      const position = BigInt(lastEventId);
      const bounds = await this.relayState.bounds();
      // Retention removed events after this position: some of this user's may be among them.
      // 0 asks for everything still kept, knowingly.
      if (position !== 0n && position < bounds.prunedThrough) {
        throw new DomainError(
          ErrorCode.EVENTS_EXPIRED,
          `Events after ${lastEventId} are no longer kept (events are kept ${this.config.retention.eventDays} days). Read the current state from the API, then open the stream without Last-Event-ID.`,
        );
      }
      // No event has this id yet: it comes from another database (a restore, a reset), and a stream
      // from it would stay silent until the numbers caught up, skipping every event before.
      if (position > bounds.last) {
        throw new DomainError(
          ErrorCode.EVENTS_EXPIRED,
          `Last-Event-ID ${lastEventId} is past the last event of this stream (${bounds.last}): it comes from another database or from before a reset, so events may have been missed. Read the current state from the API, then open the stream without Last-Event-ID.`,
        );
      }
      return lastEventId;
    }
    return this.events.latestStreamSeq(tenantOf(caller), userId);
  }

  /** Events an `after` call answers at most: a shorter page means the stream has caught up. */
  get pageSize(): number {
    return this.config.tuning.ssePageSize;
  }

  /**
   * Up to a page of events after `position`, in stream order (numeric, oldest first), while the caller
   * may still read them; otherwise no event and `refusal`, the error the caller's next request would
   * get, naming why (docs/api-guide.md, "Events"): a stream's every read is authorised again.
   */
  async after(
    caller: TenantCaller,
    userId: string,
    position: string,
    now = Date.now(),
  ): Promise<{ events: StreamedEvent[]; refusal?: DomainError }> {
    assertActsFor(caller, userId);
    if (caller.validUntil !== undefined && caller.validUntil <= now) {
      return { events: [], refusal: refusalOf(caller, 'expired') };
    }
    const apiKeyId = caller.kind === 'merchant' ? caller.apiKeyId : null;
    const consoleSessionId = caller.kind === 'merchant' ? (caller.consoleSessionId ?? null) : null;
    const page = await this.events.streamForCaller(
      tenantOf(caller),
      userId,
      apiKeyId,
      position,
      this.pageSize,
      consoleSessionId,
    );
    return page.refusal ? { events: [], refusal: refusalOf(caller, page.refusal) } : { events: page.events };
  }
}

/** The error a refused stream ends with: the one the caller's next request gets, with the reason. */
export function refusalOf(caller: TenantCaller, reason: StreamRefusal | 'expired'): DomainError {
  const session = caller.kind === 'user-session';
  switch (reason) {
    case 'merchant-disabled':
      return merchantDisabled();
    case 'key-revoked':
      return new DomainError(ErrorCode.UNAUTHENTICATED, 'The API key was revoked or has expired.');
    case 'session-ended':
      return new DomainError(ErrorCode.UNAUTHENTICATED, 'The console session has ended (signed out).');
    case 'expired':
      return new DomainError(
        ErrorCode.UNAUTHENTICATED,
        session ? 'The session token has expired.' : 'The API key has expired.',
      );
    case 'user-erased':
      // A session dies with its user; a key may still ask, and learns the user is gone.
      return session
        ? new DomainError(ErrorCode.UNAUTHENTICATED, 'The user of this session was erased.')
        : new DomainError(ErrorCode.NOT_FOUND, 'User not found: the user was erased.');
  }
}
