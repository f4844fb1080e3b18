export type * from './app-config.js';
export * from './config.js';
export * from './config.module.js';
export { LogLevel, NodeEnv } from './env.dto.js';
export { TUNING, type Tuning } from './tuning.js';
export { renderRetiredTable, RETIRED_SETTINGS, retiredSettingsIn } from './retired-settings.js';
