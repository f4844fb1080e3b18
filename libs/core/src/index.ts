export * from './core.module.js';
export * from './runtime-flags.js';
export * from './graceful-shutdown.js';
