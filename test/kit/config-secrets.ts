import type { AppConfig } from '#libs/config';

/**
 * Every configured secret of the api as it could appear in a log: operator token, upstream secret, keys
 * (in both base64 spellings, as a careless log line could print either).
 */
export function configSecrets(config: AppConfig): string[] {
  return [
    config.api.adminToken,
    config.upstream.applicationSecret,
    config.crypto.signingSecret,
    ...config.crypto.encryptionKeys.flatMap((k) => [k.key.toString('base64'), k.key.toString('base64url')]),
  ];
}
