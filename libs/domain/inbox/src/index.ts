export * from './inbox.module.js';
export * from './upstream-webhook-registration.service.js';
export * from './upstream-webhook.repository.js';
