/**
 * Where a stand-in of an outside service listens: by default plain HTTP on 127.0.0.1 and a free
 * port (the suite's tests), or HTTPS on given addresses and a port with a certificate of the
 * test CA (the field suite's simulated internet, test/field/, where stand-ins answer at the real
 * host names on public addresses).
 */
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A stand-in's listening options. */
export interface ListenOptions {
  /** Addresses to listen on, one server each (default `['127.0.0.1']`). */
  addresses?: string[];
  /** The port (default 0: a free one; give one when listening on several addresses). */
  port?: number;
  /** Serve HTTPS with this key and certificate chain (PEM) instead of HTTP. */
  tls?: { key: string; cert: string };
}

/** Servers listening with one handler. */
export interface Listening {
  servers: Server[];
  port: number;
  /** `http` or `https`. */
  scheme: 'http' | 'https';
  /** Closes every server, its open connections first. */
  close(): Promise<void>;
}

/**
 * Starts one server per address with `handler`.
 * @throws The listen error (e.g. `EADDRNOTAVAIL` for an address the machine does not have).
 */
export async function listenWith(handler: RequestListener, options: ListenOptions = {}): Promise<Listening> {
  const servers: Server[] = [];
  let port = options.port ?? 0;
  for (const address of options.addresses ?? ['127.0.0.1']) {
    const server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
  }
  return {
    servers,
    port,
    scheme: options.tls ? 'https' : 'http',
    close: async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
