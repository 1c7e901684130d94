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

/** Mocha's before: a browser test without Chromium is pending on a laptop, and fails in CI. */
export function requireBrowser(this: Mocha.Context): void {
  if (browserInstalled()) return;
  if (process.env.CI) throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
  this.skip();
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
  // Any error the page logs: CSP refusals, a form pattern the browser cannot compile... except the
  // browser's own line for an answer with an error status, which the console shows (401, 422...).
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource: /.test(message.text()))
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
  await expectFits(page, what);
}

/**
 * WCAG 1.4.10 (reflow): nothing makes the page scroll sideways (a long line of code, a wide table),
 * and nothing is cut off at the window's edge or by a box that hides what overflows it: content
 * wider than the window scrolls inside a box of its own that fits the window.
 */
export async function expectFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  expect(overflow, `${what} is wider than the window by ${overflow} px`).to.be.at.most(0);
  const cut = await page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const inside = (rect) => rect.left >= -1 && rect.right <= width + 1;
    /** The nearest ancestor that scrolls sideways, or hides what overflows it. */
    const clipperOf = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') return a;
      return null;
    };
    const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const cut = [];
    for (const el of document.body.querySelectorAll('*')) {
      const rect = el.getBoundingClientRect();
      // Not shown, or moved off the screen on purpose until focused (the skip link).
      if (rect.width <= 1 || rect.height <= 1 || rect.right <= 0) continue;
      if (inside(rect)) continue;
      const clipper = clipperOf(el);
      if (clipper && scrolls(clipper) && inside(clipper.getBoundingClientRect())) continue;
      const text = (el.textContent || '').trim().slice(0, 30);
      cut.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + text + '" ' + Math.round(rect.left) + '..' + Math.round(rect.right));
    }
    return cut.slice(0, 10);
  })()`);
  expect(
    cut,
    `${what}: cut off at the window's edge, or wider than it outside a scroll box`,
  ).to.deep.equal([]);
}

/** A phone (an iPhone 14's CSS pixels): the narrowest screen the console promises to work on. */
export const PHONE = { width: 390, height: 844 };

/**
 * The page as it is, at the window's width and then on a phone, each checked by expectAccessible
 * (axe and reflow) and saved as a screenshot when asked (name, and name-phone); the window's size
 * is restored after.
 */
export async function expectAtEveryWidth(page: Page, what: string, name?: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1440, height: 900 };
  await expectAccessible(page, `${what} at ${size.width} px`);
  if (name) await screenshot(page, name);
  await page.setViewportSize(PHONE);
  await settled(page);
  try {
    await expectAccessible(page, `${what} at ${PHONE.width} px`);
    if (name) await screenshot(page, `${name}-phone`);
  } finally {
    await page.setViewportSize(size);
    await settled(page);
  }
}

/** Two frames: layout and what observes it (charts, scroll boxes) have followed a resize. */
function settled(page: Page): Promise<void> {
  return page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())))',
  );
}

/** With CONSOLE_SCREENSHOTS=<folder>, each page is saved there as PNG (docs/console.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.CONSOLE_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}

/**
 * Focus reaches the element with this id: a form moves it to the first refused field after the
 * error renders, so it is waited for (5 s) rather than read once; fails naming where focus is.
 */
export async function expectFocusOn(page: Page, id: string): Promise<void> {
  const reached = await page
    .waitForFunction(`document.activeElement?.id === ${JSON.stringify(id)}`, undefined, {
      timeout: 5_000,
    })
    .then(
      () => true,
      () => false,
    );
  if (!reached)
    expect(await page.evaluate('document.activeElement?.id ?? ""'), 'focused element id').to.equal(
      id,
    );
}
