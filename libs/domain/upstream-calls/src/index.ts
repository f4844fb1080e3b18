export * from './institution-health.repository.js';
export * from './institution-health.service.js';
export { INSTITUTION_ERROR_KINDS } from './institution-health.statements.js';
export * from './upstream-call.recorder.js';
export { type CallParent, UPSTREAM_CALL_KEY } from './upstream-call.repository.js';
export type { UpstreamCallRow } from './upstream-call.statements.js';
export * from './upstream-calls.module.js';
export * from './upstream-calls.service.js';
