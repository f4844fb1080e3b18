export * from './clock.module.js';
export * from './instant.js';
