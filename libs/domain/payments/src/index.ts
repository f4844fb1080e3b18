export * from './payment-state.repository.js';
export * from './payments.module.js';
export * from './vrp-payment.repository.js';
export * from './vrp-payments.service.js';
