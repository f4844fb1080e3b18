import type { components } from '#libs/upstream-openapi';

/**
 * A record as the real upstream's public OpenAPI publishes it. The sandbox's answers are typed by these,
 * the same generated types the client reads them with, so a field the sandbox names or shapes otherwise
 * than the upstream does not compile.
 */
export type Published<Name extends keyof components['schemas']> = components['schemas'][Name];
