export * from './api-key.js';
export * from './secret-box.js';
