export * from './sync-requests.service.js';
export * from './sync-run.repository.js';
export * from './sync-run.statements.js';
export * from './sync-run-trigger.js';
export * from './sync-run.metrics.js';
export * from './sync-runs.module.js';
