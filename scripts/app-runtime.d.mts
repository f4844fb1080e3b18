// Types of app-runtime.mjs for the TypeScript tests.

export const APP_ENV: Record<string, string>;
export const APP_NODE_FLAGS: Record<string, string[]>;
