export * from './auth.module.js';
export * from './auth.strategies.js';
export * from './authentication.guard.js';
export * from './bearer.js';
export * from './merchant-cors.js';
export * from './rate-limit.guard.js';
export * from './rate-limiter.service.js';
export * from './session-token.js';
