export * from './core.module.js';
export * from './clock.js';
export * from './runtime-flags.js';
