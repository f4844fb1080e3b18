export * from './log-capture.js';
export * from './test-config.js';
export * from './seeded-random.js';
export * from './test-seed.js';
export * from './eventually.js';
export * from './properties.js';
export * from './iso-8601.js';
