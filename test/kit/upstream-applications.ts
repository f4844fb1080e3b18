import { randomUUID } from 'node:crypto';
import type { AppConfig } from '#libs/config';

/** Creates a sub-application on a sandbox with the root application's credentials; returns its id. */
export async function createSandboxSubApplication(
  sandboxUrl: string,
  config: AppConfig,
  name?: string,
): Promise<string> {
  const basic = Buffer.from(`${config.upstream.applicationId}:${config.upstream.applicationSecret}`).toString(
    'base64',
  );
  const response = await fetch(`${sandboxUrl}/applications`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: name ?? `sub ${randomUUID().slice(0, 8)}`,
      merchantCategoryCode: '5999',
      ppcUserGroup: 'COMMERCIAL',
      isContractPresent: true,
    }),
  });
  if (!response.ok) throw new Error(`create sub-application: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { id: string } }).data.id;
}
