export * from './job-catalogue.js';
export * from './job-schedules.js';
export * from './job-producer.service.js';
export * from './queue.module.js';
export * from './job-processor.base.js';
export * from './queue-prefix.js';
export * from './lanes.js';
