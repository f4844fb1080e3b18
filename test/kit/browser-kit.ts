import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { eventually, WAIT } from '#libs/testing';

/** Debian's Chromium: `npm test` installs it when missing; nothing downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where each step's screenshot goes (git-ignored): test artefacts a person can look at. */
export const ARTEFACTS = join(process.cwd(), 'test-artifacts', 'demo');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** Saves the page as it looks now, named by the step, under {@link ARTEFACTS}. */
export async function screenshot(page: Page, step: string): Promise<void> {
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTEFACTS, `${step}.png`), fullPage: true });
}

/**
 * {@link eventually} for a check that only asserts what a page shows: a page draws after its requests
 * answer, so the first look is often too early.
 */
export function untilShown(
  what: string,
  check: () => Promise<void>,
  within: number = WAIT.page,
): Promise<true> {
  return eventually(
    what,
    async () => {
      await check();
      return true as const;
    },
    within,
  );
}
