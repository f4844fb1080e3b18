export * from './audit-action.js';
export * from './audit-entry.repository.js';
export * from './audit-trail.service.js';
export * from './audit.module.js';
