import type { OperationHandler } from '../../http/operation.ts';
import { answerPreflight } from '../../http/publishableKeys.ts';

/**
 * `OPTIONS /api/v1/passes`: the CORS preflight of a web page that issues a pass with a
 * publishable key (Fetch Standard, https://fetch.spec.whatwg.org/#http-cors-protocol); no key,
 * the page's `Origin` must be one a live publishable key names (src/http/publishableKeys.ts).
 * `204` with the CORS headers.
 * @throws ValidationError naming `Access-Control-Request-Method` for a method other than `POST`;
 *   RateLimitError past the publishable keys' limit; OriginNotAllowedError (403) for another origin.
 */
export const preflightCreatePass: OperationHandler<'preflightCreatePass'> = async ({ headers, ctx }) => ({
  status: 204,
  body: undefined,
  headers: await answerPreflight({
    db: ctx.db,
    clock: ctx.clock,
    perMinute: ctx.config.publishableRateLimitPerMinute,
    // Both are required header parameters: the validator answered 400 without them.
    origin: headers.origin!,
    requestedMethod: String(headers['access-control-request-method']),
    address: ctx.clientAddress,
  }),
});
