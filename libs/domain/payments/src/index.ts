export * from './payment-state.repository.js';
export * from './payments.module.js';
