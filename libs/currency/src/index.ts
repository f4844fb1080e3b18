export * from './currency-decimals.js';
export * from './payment-currencies.js';
