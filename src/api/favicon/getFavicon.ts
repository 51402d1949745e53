import type { OperationHandler } from '../../http/operation.ts';

/**
 * `GET /favicon.ico`: the icon browsers request of every site by themselves. The service has none
 * of its own: 204 No Content (RFC 9110 §15.3.5), kept by the browser for a day
 * (`Cache-Control: public, max-age=86400`, RFC 9111 §5.2.2.1), instead of a JSON 404 that its
 * console reports as an error.
 */
export const getFavicon: OperationHandler<'getFavicon'> = async () => ({
  status: 204,
  headers: { 'Cache-Control': 'public, max-age=86400' },
  body: undefined,
});
