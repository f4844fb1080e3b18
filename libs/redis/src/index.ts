export * from './redis-options.js';
export * from './redis.module.js';
