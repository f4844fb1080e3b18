// Rule: libs never import apps, and this kit starts apps, so it lives in test/kit/; libs/testing keeps only what unit specs in libs/ and apps/ need.
/**
 * The test kit: stacks, requests, envelopes, waiting and test data, imported by every test from this
 * index. Specialised parts (a browser, the SDK's proxy, OpenAPI, SQL and schema checks, traced stacks, the
 * upstream client's kit) are imported from their own files in this folder.
 */
export * from '#libs/testing';
export * from './api-client.js';
export * from './api-kit.js';
export * from './bank-consents.js';
export * from './config-secrets.js';
export * from './event-kit.js';
export * from './factories.js';
export * from './payment-kit.js';
export * from './releases.js';
export * from './running-apps.js';
export * from './sandbox-http.js';
export * from './sandbox-payments.js';
export * from './scratch-database.js';
export * from './sync-kit.js';
export * from './test-dns.js';
export * from './upstream-applications.js';
export * from './user-present.mjs';
export * from './worker-process.js';
