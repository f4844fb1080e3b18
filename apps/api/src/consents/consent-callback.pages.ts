import type { FastifyReply } from 'fastify';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '#libs/http';

// The pages a user's browser sees on the public consent routes. Each is whole here, with no script and
// nothing loaded from elsewhere, so the CSP below can forbid everything else.

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">${head}
<title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}button{font:inherit;padding:.5rem 1rem}</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;
}

/** The page a user back from the bank sees while we cannot store the answer: it reloads itself. */
export const RETRY_PAGE = page(
  'Finishing your bank connection',
  `<p>Your bank has answered, but we could not save the answer just now. This page tries again by itself
in a few seconds; please keep it open.</p>
<p><a href="">Try again now</a></p>`,
  `\n<meta http-equiv="refresh" content="${DEPENDENCY_RETRY_AFTER_SECONDS}">`,
);

/**
 * Our renewal link's page: opening it asks nothing of the bank (a mail scanner or a prefetch opens links
 * too, and asking suspends the consent until the user approves); the button, pressed by the user, does.
 * A form of a relative action, so it posts back to this route wherever the api is published.
 */
export const renewalPage = (link: string) =>
  page(
    'Renew your bank connection',
    `<p>Your bank asks you to confirm that this service may keep reading your accounts. Continue, and your
bank will ask you to sign in and approve it.</p>
<form method="post" action="reauthorise">
<input type="hidden" name="link" value="${escape(link)}">
<button type="submit">Continue to your bank</button>
</form>`,
  );

/** The renewal link once its renewal is done: nothing to do, however often it is opened. */
export const RENEWED_PAGE = page(
  'Your bank connection is already renewed',
  '<p>There is nothing more to do here: you can close this page.</p>',
);

/**
 * Sends one of these pages: never cached (they stand for a consent's state now), no Referer from a URL
 * that carried a token, never framed (the renewal button must not be clicked from someone else's page).
 */
export async function sendPage(reply: FastifyReply, status: number, html: string): Promise<void> {
  await reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    // No form-action: the renewal form's answer redirects to the bank, which form-action would block.
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    )
    .type('text/html; charset=utf-8')
    .send(html);
}
