export * from './caller.js';
export * from './request-context.js';
