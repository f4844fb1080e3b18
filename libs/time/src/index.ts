export * from './clock.module.js';
export * from './instant.js';
export * from './calendar-day.js';
export * from './day-range.js';
