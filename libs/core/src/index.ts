export * from './core.module.js';
export * from './clock.module.js';
export * from './runtime-flags.js';
export * from './graceful-shutdown.js';
export * from './instant.js';
