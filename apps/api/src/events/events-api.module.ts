import { Module } from '@nestjs/common';
import { AuditModule } from '#libs/domain/audit';
import { EventsModule } from '#libs/domain/events';
import { SyncModule } from '#libs/domain/sync';
import { EventCatalogueController } from './event-catalogue.controller.js';
import { EventEndpointsController } from './event-endpoints.controller.js';
import { EventsController } from './events.controller.js';
import { LookupController } from './lookup.controller.js';
import { UserEventStreams } from './user-event-streams.js';
import { UserEventsController } from './user-events.controller.js';

/**
 * Events out: a merchant's webhook endpoints and their deliveries, the events list, a user's live stream,
 * and looking an id up across runs, events and deliveries.
 */
@Module({
  imports: [EventsModule, SyncModule, AuditModule],
  controllers: [
    EventCatalogueController,
    EventEndpointsController,
    EventsController,
    LookupController,
    UserEventsController,
  ],
  providers: [UserEventStreams],
})
export class EventsApiModule {}
