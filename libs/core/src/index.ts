export * from './core.module.js';
export * from './clock.js';
