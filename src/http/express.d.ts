import type { RequestContext } from './operation.ts';

declare global {
  namespace Express {
    interface Request {
      /** Set by the app for every request; see RequestContext. */
      ctx: RequestContext;
    }
  }
}
