export * from './events.module.js';
export * from './merchant-event.repository.js';
