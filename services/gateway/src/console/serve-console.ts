import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '@koa/send';
import type { Context, Middleware } from 'koa';
import { AppError } from '@switchyard/shared';
import type { GatewayState } from '../middleware/request-id';

export const CONSOLE_PATH = '/console';

/** Where `npm run build` puts the console (services/gateway/dist/console). */
export const BUILT_CONSOLE_DIR = join(__dirname, '..', '..', 'console');

/**
 * The console loads nothing but its own bundled files and calls nothing but this origin's API:
 * no inline script or style, no other host, and no page may frame it.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const YEAR_MS = 365 * 24 * 3600 * 1000;

function secure(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

async function sendFile(ctx: Context, dir: string, file: string, immutable: boolean) {
  try {
    await send(ctx, file, {
      root: dir,
      index: false,
      ...(immutable ? { maxage: YEAR_MS, immutable: true } : {}),
    });
  } catch (error) {
    // koa-send's refusals (no such file, a path leaving the folder) are all "not here" to a client.
    const status = (error as { status?: number }).status ?? 500;
    if (status >= 400 && status < 500) throw AppError.notFound(`no console file ${ctx.path}`);
    throw error;
  }
  // Only hashed assets are cached: a new build of index.html shows at the next load.
  if (!immutable) ctx.set('Cache-Control', 'no-cache');
}

/**
 * Serves the built console under /console: files by name (assets/ carry a content hash and are
 * cached for good), every other path is a page of the single-page app and gets index.html.
 */
export function serveConsole(dir: string = BUILT_CONSOLE_DIR): Middleware<GatewayState> {
  return async (ctx, next) => {
    const path = ctx.path;
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (path === CONSOLE_PATH) return ctx.redirect(`${CONSOLE_PATH}/`);
    if (!existsSync(join(dir, 'index.html')))
      throw new AppError('unavailable', 'the console is not built: run npm run build');
    secure(ctx as unknown as Context);
    const file = path.slice(CONSOLE_PATH.length + 1);
    const last = file.slice(file.lastIndexOf('/') + 1);
    if (last.includes('.'))
      await sendFile(ctx as unknown as Context, dir, file, file.startsWith('assets/'));
    else await sendFile(ctx as unknown as Context, dir, 'index.html', false);
  };
}
