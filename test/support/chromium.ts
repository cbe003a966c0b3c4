/**
 * Debian's Chromium (`/usr/bin/chromium`) driven by playwright-core for the Web page's browser tests (issue 18):
 * never a downloaded browser, a fresh user-data directory per launch (removed on close), and a watch on each page
 * that records every page error and console warning or error, so a test can fail on them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where Debian installs Chromium (`apt-get install chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for a quiet, sandbox-free (CI runs as root) and network-silent browser. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A launched browser: its one persistent context and how to close it. */
export interface LaunchedChromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its user-data directory. */
  close(): Promise<void>;
}

/**
 * Launches Chromium headless with a fresh user-data directory (Playwright takes it as `launchPersistentContext`'s
 * first argument; a `--user-data-dir` flag is refused).
 *
 * @param options `viewport` of its pages (default 1280×900); `proxy`, an HTTP proxy every request goes through, loopback
 * addresses included (a test that cuts connections in the middle)
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number }; proxy?: string } = {},
): Promise<LaunchedChromium> {
  // Said plainly instead of Playwright's launch error: the tests never download a browser.
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`the browser tests need Debian's Chromium at ${CHROMIUM_PATH}: apt-get install chromium`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'sessionctx-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Chromium never sends loopback requests through a proxy unless told to (`<-loopback>`).
      args: options.proxy === undefined ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, '--proxy-bypass-list=<-loopback>'],
      ...(options.proxy === undefined ? {} : { proxy: { server: options.proxy, bypass: '<-loopback>' } }),
      viewport: options.viewport ?? { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    return {
      context,
      async close() {
        try {
          await context.close();
        } finally {
          rmSync(userDataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Records what must never happen on a page: uncaught errors (`pageerror`) and console messages of type `error` or
 * `warning`. The test asserts the list is empty at its end.
 *
 * @param page the page to watch
 * @returns the live list of problems, as text
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    const type = message.type();
    if (type === 'error' || type === 'warning') problems.push(`console.${type}: ${message.text()}`);
  });
  return problems;
}
