export * from './redis.module.js';
