/**
 * One real `sessionctx serve` server and one Chromium for a browser test file (issue 18): a temporary copy of the
 * dsh-small fixture sessions (plus, when asked, DCP scenario sessions written by the built CLI's `script run`), the
 * real server on the built page (`dist/web`), signed in once through its token URL. Every page a test opens is
 * watched: a page error or a console warning or error fails the test.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../src/main/engine/assembly/create-engine.js';
import type { WebSearch } from '../../../src/main/faces/web/web-handlers.js';
import { type RunningWebServer, startWebServer } from '../../../src/main/faces/web/web-server.js';
import { type LaunchedChromium, launchChromium, watchPageProblems } from '../../support/chromium.js';
import { runBuiltCli } from '../../support/cli-process.js';
import { DCP_DSH, RAW_ROOT } from '../../support/fixtures.js';

/** The DCP scenarios written into the root when asked, by their fixture names (each session's id is its scenario's). */
export const DCP_SCENARIOS = ['s2-compress', 's4-dedup'] as const;

/** A running server over a temporary root and a browser signed in to it. */
export interface WebPageFixture {
  readonly root: string;
  readonly engine: LocalSessionEngine;
  readonly server: RunningWebServer;
  readonly browser: LaunchedChromium;
  /**
   * Opens a new page at `hash` (e.g. `#/compose`) and waits for the view's heading.
   *
   * @returns the page and its live list of problems
   */
  open(hash: string): Promise<{ page: Page; problems: string[] }>;
  /** Closes browser, server and engine; removes the root. */
  close(): Promise<void>;
}

/** Options of {@link startWebPageFixture}. */
export interface WebPageFixtureOptions {
  /** Write the DCP scenario sessions too. */
  readonly dcpSessions?: boolean;
  /** Viewport of the pages. */
  readonly viewport?: { width: number; height: number };
  /** The server's full-text search (none: `search/sessions` replies `SEARCH_UNAVAILABLE`). */
  readonly search?: WebSearch;
  /** An HTTP proxy the browser sends every request through (`http://127.0.0.1:<port>`). */
  readonly proxy?: () => string;
  /** Writes more sessions into the temporary root before the engine starts. */
  readonly prepareRoot?: (root: string) => void | Promise<void>;
}

/**
 * Starts the fixture.
 *
 * @param options what to write and how large the pages are
 */
export async function startWebPageFixture(options: WebPageFixtureOptions = {}): Promise<WebPageFixture> {
  const root = mkdtempSync(join(tmpdir(), 'sessionctx-web-root-'));
  cpSync(RAW_ROOT, root, { recursive: true });
  await options.prepareRoot?.(root);
  if (options.dcpSessions === true) {
    for (const name of DCP_SCENARIOS) {
      const outcome = await runBuiltCli(['script', 'run', join(DCP_DSH, `${name}.scenario.json`), '--root', root, '--json'], {
        timeoutMs: 60_000,
      });
      if (outcome.code !== 0) throw new Error(`script run ${name} failed: ${outcome.stderr}`);
    }
  }
  const engine = await createEngine({ root, workers: false, sourceCache: false });
  const server = await startWebServer(options.search === undefined ? { engine } : { engine, search: options.search });
  const browser = await launchChromium({
    ...(options.viewport === undefined ? {} : { viewport: options.viewport }),
    ...(options.proxy === undefined ? {} : { proxy: options.proxy() }),
  });
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  // The token is exchanged once for the session cookie; later pages of this context carry the cookie.
  const first = await browser.context.newPage();
  const firstProblems = watchPageProblems(first);
  await first.goto(server.url);
  await first.locator('main h1').first().waitFor();
  expect(new URL(first.url()).search).toBe('');
  await first.close();
  expect(firstProblems).toEqual([]);
  return {
    root,
    engine,
    server,
    browser,
    async open(hash) {
      const page = await browser.context.newPage();
      const problems = watchPageProblems(page);
      await page.goto(`${server.origin}/${hash}`);
      await page.locator('main h1').first().waitFor();
      return { page, problems };
    },
    async close() {
      try {
        await browser.close();
      } finally {
        try {
          await server.close();
          await engine.close();
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }
    },
  };
}

const REFUSED_CALL = /^console\.error: Failed to load resource: the server responded with a status of (4\d\d|5\d\d)\b/;

/**
 * Accounts for the console lines Chromium itself writes for API replies with an error status (`{ok:false}` replies
 * carry 4xx/5xx, docs/WEB.md): exactly `count` of them must be present; they are removed, so every other problem
 * still fails the test.
 *
 * @param problems a page's problem list (changed in place)
 * @param count how many refused calls the test caused
 */
export function expectOnlyRefusedCalls(problems: string[], count: number): void {
  const refused = problems.filter((problem) => REFUSED_CALL.test(problem));
  expect(refused).toHaveLength(count);
  const others = problems.filter((problem) => !REFUSED_CALL.test(problem));
  problems.splice(0, problems.length, ...others);
}

/** One test file's fixture and the pages its tests open. */
export interface WebPageSession {
  /** The fixture (started by the file's `beforeAll`). */
  readonly fixture: WebPageFixture;
  /**
   * Opens a page at `hash` ({@link WebPageFixture.open}); after the test, its problems must be none (account for
   * expected ones with {@link expectOnlyRefusedCalls}) and it is closed.
   */
  open(hash: string): Promise<{ page: Page; problems: string[] }>;
}

/**
 * Registers the hooks of a browser test file (or `describe` block): start the fixture before its tests, close it
 * after them, and after each test check and close every page the test opened.
 *
 * @param options what the fixture writes and serves
 */
export function useWebPageFixture(options: WebPageFixtureOptions = {}): WebPageSession {
  let started: WebPageFixture | undefined;
  let opened: { page: Page; problems: string[] }[] = [];
  beforeAll(async () => {
    started = await startWebPageFixture(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  afterEach(async () => {
    const pages = opened;
    opened = [];
    for (const { page, problems } of pages) {
      expect(problems).toEqual([]);
      await page.close();
    }
  });
  const session: WebPageSession = {
    get fixture(): WebPageFixture {
      if (started === undefined) throw new Error('the web page fixture is used before its beforeAll ran');
      return started;
    },
    async open(hash) {
      const page = await session.fixture.open(hash);
      opened.push(page);
      return page;
    },
  };
  return session;
}
