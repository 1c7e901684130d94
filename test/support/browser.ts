import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium); CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags that let Chromium run headless as root on a machine with no network but loopback: no
 * sandbox (root), no GPU, and none of its background connections to Google's hosts.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let launched: Promise<Browser> | undefined;

export function browserInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/**
 * One browser per test run, closed by the root hook. Playwright starts it with a fresh temporary
 * profile (--user-data-dir) and removes it at close; each test opens its own context.
 */
export function browser(): Promise<Browser> {
  // Loaded on first use: the root hooks import this module in every run, browser tests or not.
  launched ??= import('playwright-core').then(({ chromium }) =>
    chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }),
  );
  return launched;
}

export async function closeBrowser(): Promise<void> {
  if (!launched) return;
  const running = launched;
  launched = undefined;
  await (await running).close();
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Requests to any other origin than the gateway's, and Content-Security-Policy refusals. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * A new browser context (its own session storage) on the gateway's console, recording every
 * request that leaves the gateway's origin and every message the page logs about a refusal.
 */
export async function openConsole(
  gatewayUrl: string,
  viewport = { width: 1440, height: 900 },
): Promise<ConsolePage> {
  const context = await (await browser()).newContext({ viewport, baseURL: gatewayUrl });
  const page = await context.newPage();
  const origin = new URL(gatewayUrl).origin;
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request to ${url.href}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto('/console/');
  return { page, context, problems, close: () => context.close() };
}

let axeSource: string | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules) in the page and fails on any serious or critical
 * violation. The script is evaluated through the DevTools protocol, which the page's CSP does not
 * govern (an injected <script> would be refused, as it should be).
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`axe
    .run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    })
    .then((result) => result.violations)`);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')})`,
    ),
    `accessibility of ${what}`,
  ).to.deep.equal([]);
  // WCAG 1.4.10 (reflow): nothing makes the page scroll sideways, e.g. a long line of code.
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  expect(overflow, `${what} is wider than the window by ${overflow} px`).to.be.at.most(0);
}

/** With CONSOLE_SCREENSHOTS=<folder>, each page is saved there as PNG (docs/console.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.CONSOLE_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}
