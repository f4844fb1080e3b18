export * from './logger.js';
export * from './metrics.js';
export * from './observability.module.js';
export * from './redact.js';
export * from './dependency-outages.js';
export * from './snapshot-metrics.js';
export * from './trace-context.js';
export * from './tracing.js';
