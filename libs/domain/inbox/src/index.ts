export * from './fan-out.service.js';
export * from './inbound-event.repository.js';
export * from './inbox-retention.service.js';
export * from './inbox-sweeper.service.js';
export * from './inbox.module.js';
export * from './upstream-webhook-registration.service.js';
export * from './upstream-webhook.repository.js';
export * from './webhook-receiver.service.js';
