// Types of scenario-names.mjs for the TypeScript tests.
export const SCENARIOS: readonly string[];
