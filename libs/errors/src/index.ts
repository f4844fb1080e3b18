export * from './dependency-failure.js';
export * from './domain-error.js';
export * from './reconnect-hint.js';
