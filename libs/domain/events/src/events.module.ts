import { Module } from '@nestjs/common';
import { UsersModule } from '#libs/domain/users';
import { EndpointThrottle } from './endpoint-throttle.js';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { EventDeliveryService } from './event-delivery.service.js';
import { EventDeliveryStatsRepository } from './event-delivery-stats.repository.js';
import { EventEndpointRepository } from './event-endpoint.repository.js';
import { EventEndpointsService } from './event-endpoints.service.js';
import { EventsListService } from './events-list.service.js';
import { EventsRetentionService } from './events-retention.service.js';
import { EventsSweeperService } from './events-sweeper.service.js';
import { FailingEndpointsService } from './failing-endpoints.service.js';
import { MerchantEventRepository } from './merchant-event.repository.js';
import { OutboxRelayService } from './outbox-relay.service.js';
import { OutboxRelayStateRepository } from './outbox-relay-state.repository.js';
import { UserEventsService } from './user-events.service.js';

/** Events out: the outbox, its relay, merchant endpoints and their deliveries, users' streams. */
@Module({
  imports: [UsersModule],
  providers: [
    MerchantEventRepository,
    EventsListService,
    OutboxRelayStateRepository,
    EventEndpointRepository,
    EventDeliveryRepository,
    EndpointThrottle,
    OutboxRelayService,
    EventDeliveryService,
    EventEndpointsService,
    EventsSweeperService,
    FailingEndpointsService,
    EventsRetentionService,
    UserEventsService,
    EventDeliveryStatsRepository,
  ],
  exports: [
    MerchantEventRepository,
    EventDeliveryRepository,
    EventsListService,
    OutboxRelayService,
    EventDeliveryService,
    EventEndpointsService,
    EventsSweeperService,
    EventsRetentionService,
    UserEventsService,
    EventDeliveryStatsRepository,
  ],
})
export class EventsModule {}
