import { METHOD_METADATA } from '@nestjs/common/constants';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';

type Handler = (...args: never[]) => unknown;

/**
 * Fastify route config from Nest decorators, merged rather than replaced: Nest's own `@RouteConfig` sets
 * the whole object, so two decorators writing it (access, a conditional GET, a raw body) would drop each
 * other's keys silently. Nest copies it onto the route it registers (`request.routeOptions.config`),
 * where the request hooks (access, conditional GETs, kept answers, body parsing) read it.
 */
export function mergeRouteConfig(handler: Handler, config: Record<string, unknown>): void {
  const current = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined;
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...current, ...config }, handler);
}

export function routeConfigOf(handler: Handler): Record<string, unknown> {
  return (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown>) ?? {};
}

/** A method decorator merging `config` into the route's Fastify config. */
export const WithRouteConfig =
  (config: Record<string, unknown>): MethodDecorator =>
  (_target, _key, descriptor) => {
    mergeRouteConfig(descriptor.value as Handler, config);
  };

/** The route handlers a controller class declares itself (its methods with an HTTP method). */
export function routeHandlersOf(controller: new (...args: never[]) => unknown): Handler[] {
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).flatMap((name) => {
    const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
    return typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined
      ? [handler as Handler]
      : [];
  });
}

/** Fastify route config key set by {@link ProbeRoutes}. */
export const PROBE_CONFIG = 'probe';

/**
 * A controller whose routes an orchestrator or a scraper calls every few seconds (health, metrics): their
 * answers are not the app's work, and an app answering only them is idle (`requestsAnsweredBy`).
 */
export const ProbeRoutes =
  (): ClassDecorator =>
  (target): void => {
    for (const handler of routeHandlersOf(target as never))
      mergeRouteConfig(handler, { [PROBE_CONFIG]: true });
  };
