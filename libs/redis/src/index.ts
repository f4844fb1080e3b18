export * from './credential-revocations.js';
export * from './event-wakeups.js';
export * from './redis.module.js';
export * from './redis.tokens.js';
export * from './redis-client.js';
