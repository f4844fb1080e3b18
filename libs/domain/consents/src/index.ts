export * from './consent-state.signer.js';
export * from './consent.repository.js';
export * from './consents.module.js';
export * from './consents.service.js';
export * from './upstream-failure.mapper.js';
