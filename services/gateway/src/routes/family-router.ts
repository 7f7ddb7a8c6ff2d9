import express, { type Router } from 'express';
import type { Logger } from '@gleaner/platform';
import type { ApiFamily } from '../errors/index.js';
import { ctx } from '../middleware/context.js';
import { familyErrorHandler, familyNotFound } from '../middleware/error-handler.js';

/**
 * A router for one API family: its own error format for everything that goes wrong inside it,
 * including unknown paths. Paths match with and without a trailing slash (express default).
 */
export function familyRouter(family: ApiFamily, logger: Logger, build: (router: Router) => void): Router {
  const router = express.Router({ strict: false });
  router.use((_req, res, next) => {
    ctx(res).family = family;
    next();
  });
  build(router);
  router.use(familyNotFound());
  router.use(familyErrorHandler(family, logger));
  return router;
}
