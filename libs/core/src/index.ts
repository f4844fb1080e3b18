export * from './core.module.js';
