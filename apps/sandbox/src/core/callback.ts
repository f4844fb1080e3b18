import { IsUrl, type ValidationOptions } from 'class-validator';

/** Merchants test against localhost, so a TLD is not required; a scheme is, or the bank page cannot redirect. */
const CALLBACK_URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export function IsCallbackUrl(options?: ValidationOptions): PropertyDecorator {
  return IsUrl(CALLBACK_URL_OPTIONS, options);
}

/** `redirect.url` is the upstream's older spelling of `callback`; an explicit `callback` wins. */
export function callbackOf(body: { callback?: string; redirect?: { url: string } }): string | undefined {
  return body.callback ?? body.redirect?.url;
}
