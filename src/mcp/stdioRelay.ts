/**
 * `npm run mcp -- --key-file <path>` (bin/wallet-pass-mcp.js): the service's MCP server for
 * local clients that start a server as a process and speak to it over stdio
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio). It serves
 * nothing itself: every JSON-RPC message read on stdin is sent to a running service's `/mcp`
 * (Streamable HTTP, the SDK's client transport) with the API key of the key file, and every
 * message the service answers is written to stdout. So the tools, scopes and limits are the
 * service's, for that key.
 *
 * Options: `--key-file <path>` (required; the file holds the API key, surrounding white space
 * ignored), `--url <base URL>` (default `WALLET_PASS_URL`, else `http://<HOST>:<PORT>` as the
 * admin CLI finds the server), `--tags <a,b>` and `--tools meta` (the `/mcp` query parameters).
 * Diagnostics go to stderr; exit code 2 for unusable arguments.
 *
 * @module mcp/stdioRelay
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { adminApiUrl } from '../config.ts';

const USAGE = 'Usage: npm run mcp -- --key-file <path> [--url <service URL>] [--tags passes,loyalty] [--tools meta]';

/** The `/mcp` URL of the options. */
function endpointUrl(base: string, tags: string | undefined, tools: string | undefined): URL {
  const url = new URL('/mcp', base);
  if (tags) url.searchParams.set('tags', tags);
  if (tools) url.searchParams.set('tools', tools);
  return url;
}

/**
 * Runs the relay until stdin closes.
 * @param argv The arguments after the script.
 */
export async function runStdioRelay(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let options: { 'key-file'?: string; url?: string; tags?: string; tools?: string };
  try {
    ({ values: options } = parseArgs({
      args: argv,
      options: { 'key-file': { type: 'string' }, url: { type: 'string' }, tags: { type: 'string' }, tools: { type: 'string' } },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (!options['key-file']) {
    process.stderr.write(`--key-file is required.\n${USAGE}\n`);
    process.exit(2);
  }
  let key: string;
  try {
    key = readFileSync(options['key-file'], 'utf8').trim();
  } catch (error) {
    process.stderr.write(`Cannot read the key file ${options['key-file']}: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const url = endpointUrl(options.url ?? env.WALLET_PASS_URL ?? adminApiUrl(env), options.tags, options.tools);
  const service = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();
  /** Ids of `initialize` requests in flight: their result names the protocol version to send on. */
  const initializing = new Set<string | number>();

  service.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && message.id !== undefined && initializing.delete(message.id as string | number) && 'result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') service.setProtocolVersion?.(version);
    }
    void local.send(message);
  };
  service.onerror = (error) => process.stderr.write(`wallet-pass-mcp: ${url.origin}: ${error.message}\n`);
  local.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) initializing.add(message.id as string | number);
    service.send(message).catch((error: Error) => {
      process.stderr.write(`wallet-pass-mcp: ${url.href}: ${error.message}\n`);
      // A request the service did not answer gets a JSON-RPC error, so the client does not wait for ever.
      if ('method' in message && 'id' in message && message.id !== undefined) {
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32603, message: `The service at ${url.origin} did not answer: ${error.message}` },
        } as JSONRPCMessage);
      }
    });
  };
  local.onclose = () => {
    void service.close().finally(() => process.exit(0));
  };
  await service.start();
  await local.start();
}
