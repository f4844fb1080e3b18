/**
 * The api's addresses that the outside world is given, written once: the controllers mount them, and the
 * domain hands them to the upstream (a consent's callback, the webhook receiver it registers).
 */
export const PUBLIC_ROUTES = {
  consentCallback: 'v1/callbacks/consents',
  upstreamWebhook: 'v1/webhooks/upstream',
} as const;

/** A public route's absolute URL under the api's public base URL (no trailing slash). */
export function publicRouteUrl(publicUrl: string, route: keyof typeof PUBLIC_ROUTES): string {
  return `${publicUrl}/${PUBLIC_ROUTES[route]}`;
}
