export * from './console-session.repository.js';
export * from './merchant.repository.js';
export * from './merchant.service.js';
export * from './merchants.module.js';
export * from './upstream-applications.service.js';
