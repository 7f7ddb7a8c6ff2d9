import express, { type Response, type Router } from 'express';
import { buildConsoleAssets, CONSOLE_CSP, CONSOLE_SCRIPT_PATH, CONSOLE_STYLESHEET_PATH, type ConsoleAssets } from '@gleaner/console';
import type { Logger } from '@gleaner/platform';

/**
 * The account console: a page, its script and its stylesheet, public like /docs (the page signs
 * in with an API key it sends as x-api-key to /account/*). Built on the first request for any of
 * them, not at boot: most gateway processes (and tests) never serve it.
 */
export function consoleRoutes(logger: Logger): Router {
  let assets: Promise<ConsoleAssets> | null = null;
  const built = () => {
    assets ??= buildConsoleAssets().catch((err: unknown) => {
      assets = null; // the next request tries again
      throw err;
    });
    return assets;
  };
  const send = (res: Response, type: string, cacheControl: string, body: string) => {
    res.type(type).set({ 'Content-Security-Policy': CONSOLE_CSP, 'Cache-Control': cacheControl }).send(body);
  };
  const serve = (pick: (a: ConsoleAssets) => [string, string, string]) => async (_req: express.Request, res: Response) => {
    let a: ConsoleAssets;
    try {
      a = await built();
    } catch (err) {
      logger.error('console build failed', { error: (err as Error).message });
      res.status(500).type('text/plain').send('The console could not be built; see the gateway log.');
      return;
    }
    send(res, ...pick(a));
  };

  const router = express.Router();
  // The page names the current build's files (?v=<hash>): it is never cached, they may be.
  router.get('/console', serve((a) => ['html', 'no-cache', a.html]));
  router.get(CONSOLE_SCRIPT_PATH, serve((a) => ['text/javascript', 'public, max-age=3600', a.script]));
  router.get(CONSOLE_STYLESHEET_PATH, serve((a) => ['css', 'public, max-age=3600', a.stylesheet]));
  return router;
}
