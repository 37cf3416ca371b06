import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

/** Debian's headless Chromium, unless CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Content-Security-Policy every workbench page carries (README "Workbench"). */
export const WORKBENCH_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * A browser context logged in to the workbench at `url` as `credential`: a one-time ticket from
 * `POST /workbench/tickets`, opened once so its cookie is set (1280×800 unless `options` say).
 * @returns the context, the ticket request's status and the address the login landed on
 */
export async function workbenchLogin(
  browser: Browser,
  url: string,
  credential: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; status: number; landedAt: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const res = await fetch(`${url}/workbench/tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}` },
  });
  const { path } = (await res.json()) as { path: string };
  const page = await context.newPage();
  await page.goto(`${url}${path}`);
  const landedAt = page.url();
  await page.close();
  return { context, status: res.status, landedAt };
}
