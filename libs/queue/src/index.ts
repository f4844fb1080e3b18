export * from './job-catalogue.js';
export * from './job-producer.js';
export * from './queue.module.js';
