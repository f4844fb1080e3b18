export * from './institution.repository.js';
export * from './institutions.module.js';
export * from './institutions.service.js';
export * from './psu-constraints.js';
