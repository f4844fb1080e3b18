import type { AppConfig } from '#libs/config';
import { testPayee } from './factories.js';
import { SandboxHttp } from './sandbox-http.js';
import { hostedVrpBody } from './sandbox-payments.js';

/** The path and query of a URL on another base: public URLs name default ports, the apps listen on random ones. */
const on = (base: string, url: string) => {
  const u = new URL(url);
  return `${base}${u.pathname}${u.search}`;
};

/**
 * Acts as the user's browser at the sandbox bank: submits the decision on the bank's page and follows its
 * redirect to the api's callback (re-based: public URLs name default ports, the apps listen on random
 * ones). Answers the bank's redirect (the callback URL we were sent to) and where the callback sent us.
 */
export async function decideAtBank(
  apps: { apiUrl: string; sandboxUrl: string },
  authorisationUrl: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ callback: string; status: number; location: URL }> {
  const callback = await bankRedirect(apps, authorisationUrl, decision);
  const answer = await fetch(callback, { redirect: 'manual' });
  await answer.arrayBuffer();
  return {
    callback,
    status: answer.status,
    location: new URL(answer.headers.get('location') ?? 'http://x/'),
  };
}

/** The decision submitted on the sandbox bank's page: the api callback URL the bank sends the browser to. */
export async function bankRedirect(
  apps: { apiUrl: string; sandboxUrl: string },
  authorisationUrl: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<string> {
  const form = await fetch(on(apps.sandboxUrl, authorisationUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision }).toString(),
  });
  await form.arrayBuffer();
  if (form.status !== 302) throw new Error(`bank page: ${form.status}`);
  return on(apps.apiUrl, form.headers.get('location')!);
}

/**
 * A data consent obtained end to end as a merchant and a browser would: POST the consent to the api,
 * approve at the sandbox's hosted bank page, and follow the bank's redirect to the api's callback. The api
 * must run with a fixed API_PUBLIC_URL (its port is random), which is why the callback is re-based.
 * Answers the local consent id once it is AUTHORIZED.
 */
export async function connectBank(
  apps: { apiUrl: string; sandboxUrl: string },
  merchantKey: string,
  userId: string,
  institutionId = 'sandbox-redirect',
  terms: { expiresAt?: string; autoReauthorise?: boolean } = {},
): Promise<string> {
  const created = await fetch(`${apps.apiUrl}/v1/users/${userId}/consents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${merchantKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ institutionId, redirectUrl: 'https://app.merchant.example/banks/done', ...terms }),
  });
  if (created.status !== 201) throw new Error(`POST consent: ${created.status} ${await created.text()}`);
  const consent = ((await created.json()) as { data: { id: string; authorisationUrl: string } }).data;
  const back = await decideAtBank(apps, consent.authorisationUrl);
  if (back.status !== 302 || back.location.searchParams.get('status') !== 'AUTHORIZED')
    throw new Error(`callback: ${back.status} ${back.location.toString()}`);
  return consent.id;
}

export const VRP_CONTROL_PARAMETERS = {
  psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
  maxAmountPerPayment: { amount: 10_000, currency: 'GBP' },
  periodicLimits: [
    { frequency: 'MONTHLY', alignment: 'CALENDAR', totalMaxAmount: { amount: 20_000.5, currency: 'GBP' } },
  ],
};

export const VRP_INITIATION_DETAILS = {
  reference: 'Sweep',
  payee: testPayee(),
};

/**
 * A sweeping VRP consent created on the sandbox and approved through its control API (as the bank page
 * would), for the merchant's application. Answers the upstream id and token for a local row.
 */
export async function authorisedSandboxVrpConsent(
  sandboxUrl: string,
  config: AppConfig,
  applicationUserId: string,
  subApplication?: string,
  controlParameters: object = VRP_CONTROL_PARAMETERS,
): Promise<{ consentId: string; consentToken: string }> {
  const http = new SandboxHttp(sandboxUrl, config);
  const created = await http.call<{ data: { id: string } }>(
    'POST',
    '/variable-recurring-payments/sweeping/consents',
    {
      subApplication,
      body: {
        applicationUserId,
        institutionId: 'sandbox-payments',
        controlParameters,
        initiationDetails: VRP_INITIATION_DETAILS,
      },
    },
  );
  if (created.status !== 201)
    throw new Error(`create VRP consent: ${created.status} ${JSON.stringify(created.body)}`);
  const authorised = await http.admin<{ data: { id: string; consentToken?: string } }>(
    'POST',
    `/consents/${created.body.data.id}/authorise`,
  );
  if (authorised.status !== 200 || !authorised.body.data.consentToken)
    throw new Error(`authorise VRP consent: ${authorised.status} ${JSON.stringify(authorised.body)}`);
  return { consentId: authorised.body.data.id, consentToken: authorised.body.data.consentToken };
}

/** A commercial hosted VRP request created on the sandbox for an application; answers its requestId. */
export async function createSandboxHostedVrpRequest(
  sandboxUrl: string,
  config: AppConfig,
  subApplication?: string,
): Promise<string> {
  const http = new SandboxHttp(sandboxUrl, config);
  const created = await http.call<{ data: { requestId: string } }>(
    'POST',
    '/hosted/vrp-requests/commercial',
    {
      subApplication,
      body: hostedVrpBody({ initiationDetails: VRP_INITIATION_DETAILS }),
    },
  );
  if (created.status !== 201)
    throw new Error(`create hosted VRP request: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.data.requestId;
}
