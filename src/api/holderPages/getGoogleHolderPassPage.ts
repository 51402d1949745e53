import type { OperationHandler } from '../../http/operation.ts';
import { holderPassPage } from './getHolderPassPage.ts';

/**
 * `GET /passes/{id}/google`: the holder page with "Add to Google Wallet" first whatever the device
 * (the `passSource` URL for `google` of an account without Google credentials, where the page
 * shows only what works).
 * @throws NotFoundError and GoneError as getHolderPassPage.
 */
export const getGoogleHolderPassPage: OperationHandler<'getGoogleHolderPassPage'> = (input) => holderPassPage(input, 'google');
