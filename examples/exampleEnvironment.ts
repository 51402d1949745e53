/**
 * What the examples share: the client for the server and account the environment names, and
 * solid-colour brand images (templates take https URLs, fetched when the template is processed,
 * or the image itself as a `data:` URL; the examples draw theirs so that they need no image host).
 *
 * @module examples/exampleEnvironment
 */
import sharp from 'sharp';
// Inside this repository; another project imports the same from the package:
//   import { createWalletPassClient } from 'wallet-pass-service/client';
import { createWalletPassClient, type WalletPassClient } from '../src/client/index.ts';

/**
 * The server (`BASE_URL`, default `http://127.0.0.1:3000`), the account's API key (`API_TOKEN`)
 * and a typed client for both. Exits with code 2 and a hint when `API_TOKEN` is not set.
 */
export function exampleEnvironment(): { baseUrl: string; token: string; client: WalletPassClient } {
  const baseUrl = process.env.BASE_URL || 'http://127.0.0.1:3000';
  const token = process.env.API_TOKEN;
  if (!token) {
    console.error('API_TOKEN is not set: give the API key of an account (npm run admin -- account create --name <name>).');
    process.exit(2);
  }
  return { baseUrl, token, client: createWalletPassClient({ baseUrl, token }) };
}

/** A solid-colour PNG of `width` × `height` pixels as a `data:` URL. */
export async function brandImage(width: number, height: number, colour: string): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}
