/**
 * The outbound guard (src/net/outboundRequest.ts) as a table: public IPv4 and IPv6 addresses
 * pass; every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (https://www.iana.org/assignments/iana-ipv4-special-registry/,
 * https://www.iana.org/assignments/iana-ipv6-special-registry/), multicast, and IPv4-mapped
 * IPv6 addresses of private ones are refused — each range at its first and last address, with
 * the public neighbours just outside it accepted, so a range drawn too wide or too narrow shows.
 * IP literals in the forms the URL parser reads (hexadecimal, decimal, octal, short, bracketed
 * IPv6) are refused without a lookup. Names are resolved by an injected resolver, WITHOUT the
 * private-address switches; the request connects to the address it checked (the name is resolved
 * once), and its one time budget ends DNS, the TLS handshake and the response, saying which ran out.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { checkDestination, outboundRequest, OutboundRequestError, type Resolver } from '../src/net/outboundRequest.ts';

const STRICT = { allowPrivate: false, allowHttpLoopback: false };

/** A resolver answering `name` with `address` (and counting its calls). */
function resolverOf(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

/** What the guard says of a host name resolving to `address`: `public`, or the refusal's code. */
async function verdict(address: string): Promise<string> {
  try {
    await checkDestination('https://hooks.merchant.example/wallet', STRICT, { resolve: resolverOf({ 'hooks.merchant.example': [address] }) });
    return 'public';
  } catch (error) {
    if (error instanceof OutboundRequestError) return error.code;
    throw error;
  }
}

const PUBLIC = [
  // IPv4: a CDN, Apple, Google, resolvers; the public neighbours of special-purpose ranges.
  '93.184.215.14',
  '17.253.144.10',
  '142.250.74.46',
  '8.8.8.8',
  '1.1.1.1',
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '191.255.255.255',
  '192.0.1.0',
  '192.0.3.0',
  '192.31.195.255',
  '192.31.197.0',
  '192.52.192.255',
  '192.52.194.0',
  '192.88.98.255',
  '192.88.100.0',
  '192.167.255.255',
  '192.169.0.0',
  '192.175.47.255',
  '192.175.49.0',
  '198.17.255.255',
  '198.20.0.0',
  '198.51.99.255',
  '198.51.101.0',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255',
  // IPv6: Google, Cloudflare, a CDN; the neighbours of special-purpose ranges inside 2000::/3.
  '2a00:1450:4001:82b::200e',
  '2606:4700:4700::1111',
  '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
  '2001:200::1',
  '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
  '2001:db9::',
  '2003::1',
  '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
  '2620:4f:8001::',
  '3fff:1000::',
  // IPv4-mapped IPv6 of public IPv4 addresses: the IPv4 address decides.
  '::ffff:93.184.215.14',
  '::ffff:5db8:d70e',
];

/** Each special-purpose range, IANA's name for it, and its first and last address. */
const SPECIAL: [range: string, first: string, last: string][] = [
  // IANA IPv4 Special-Purpose Address Registry.
  ['0.0.0.0/8 "This network" (and 0.0.0.0/32 "This host on this network")', '0.0.0.0', '0.255.255.255'],
  ['10.0.0.0/8 Private-Use', '10.0.0.0', '10.255.255.255'],
  ['100.64.0.0/10 Shared Address Space', '100.64.0.0', '100.127.255.255'],
  ['127.0.0.0/8 Loopback', '127.0.0.0', '127.255.255.255'],
  ['169.254.0.0/16 Link Local', '169.254.0.0', '169.254.255.255'],
  ['172.16.0.0/12 Private-Use', '172.16.0.0', '172.31.255.255'],
  ['192.0.0.0/24 IETF Protocol Assignments', '192.0.0.0', '192.0.0.255'],
  ['192.0.0.0/29 IPv4 Service Continuity Prefix', '192.0.0.0', '192.0.0.7'],
  ['192.0.0.8/32 IPv4 dummy address', '192.0.0.8', '192.0.0.8'],
  ['192.0.0.9/32 Port Control Protocol Anycast', '192.0.0.9', '192.0.0.9'],
  ['192.0.0.10/32 Traversal Using Relays around NAT Anycast', '192.0.0.10', '192.0.0.10'],
  ['192.0.0.170/32, 192.0.0.171/32 NAT64/DNS64 Discovery', '192.0.0.170', '192.0.0.171'],
  ['192.0.2.0/24 Documentation (TEST-NET-1)', '192.0.2.0', '192.0.2.255'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.0', '192.31.196.255'],
  ['192.52.193.0/24 AMT', '192.52.193.0', '192.52.193.255'],
  ['192.88.99.0/24 Deprecated (6to4 Relay Anycast)', '192.88.99.0', '192.88.99.255'],
  ['192.168.0.0/16 Private-Use', '192.168.0.0', '192.168.255.255'],
  ['192.175.48.0/24 Direct Delegation AS112 Service', '192.175.48.0', '192.175.48.255'],
  ['198.18.0.0/15 Benchmarking', '198.18.0.0', '198.19.255.255'],
  ['198.51.100.0/24 Documentation (TEST-NET-2)', '198.51.100.0', '198.51.100.255'],
  ['203.0.113.0/24 Documentation (TEST-NET-3)', '203.0.113.0', '203.0.113.255'],
  ['240.0.0.0/4 Reserved', '240.0.0.0', '255.255.255.254'],
  ['255.255.255.255/32 Limited Broadcast', '255.255.255.255', '255.255.255.255'],
  ['224.0.0.0/4 Multicast (IANA IPv4 Multicast Address Space Registry)', '224.0.0.0', '239.255.255.255'],
  // IANA IPv6 Special-Purpose Address Registry.
  ['::1/128 Loopback Address', '::1', '::1'],
  ['::/128 Unspecified Address', '::', '::'],
  ['::ffff:0:0/96 IPv4-mapped Address (of a private IPv4 address)', '::ffff:10.0.0.1', '::ffff:127.255.255.255'],
  ['64:ff9b::/96 IPv4-IPv6 Translat.', '64:ff9b::', '64:ff9b::ffff:ffff'],
  ['64:ff9b:1::/48 IPv4-IPv6 Translat.', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  ['100::/64 Discard-Only Address Block', '100::', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64 Dummy IPv6 Prefix', '100:0:0:1::', '100::1:ffff:ffff:ffff:ffff'],
  ['2001::/23 IETF Protocol Assignments', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001::/32 TEREDO', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:1::1/128 Port Control Protocol Anycast', '2001:1::1', '2001:1::1'],
  ['2001:1::2/128 Traversal Using Relays around NAT Anycast', '2001:1::2', '2001:1::2'],
  ['2001:1::3/128 DNS-SD Service Registration Protocol Anycast', '2001:1::3', '2001:1::3'],
  ['2001:2::/48 Benchmarking', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'],
  ['2001:3::/32 AMT', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'],
  ['2001:10::/28 Deprecated (previously ORCHID)', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:20::/28 ORCHIDv2', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:30::/28 Drone Remote ID Protocol Entity Tags (DETs) Prefix', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:db8::/32 Documentation', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2002::/16 6to4', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2620:4f:8000::/48 Direct Delegation AS112 Service', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'],
  ['3fff::/20 Documentation', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['5f00::/16 Segment Routing (SRv6) SIDs', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7 Unique-Local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10 Link-Local Unicast', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8 Multicast (IANA IPv6 Multicast Address Space Registry)', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  // Outside 2000::/3, IANA's only global unicast allocation (IPv6 Address Space registry).
  ['::/96 deprecated IPv4-compatible (of 127.0.0.1)', '::7f00:1', '::7f00:1'],
  ['fec0::/10 deprecated site-local', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['4000::/2 unassigned', '4000::1', '7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

describe('the address table (a name resolving to the address, no private-address switch)', () => {
  it.each(PUBLIC)('accepts %s, a public address', async (address) => {
    expect(await verdict(address)).toBe('public');
  });

  it.each(SPECIAL)('refuses %s: its first address %s and its last %s', async (_range, first, last) => {
    expect({ first: await verdict(first), last: await verdict(last) }).toEqual({ first: 'private_address', last: 'private_address' });
  });

  it('refuses a name when any one of its addresses is special-purpose, and says which', async () => {
    const resolve = resolverOf({ 'mixed.merchant.example': ['93.184.215.14', '2606:4700:4700::1111', '::ffff:192.168.1.20'] });
    await expect(checkDestination('https://mixed.merchant.example/', STRICT, { resolve })).rejects.toMatchObject({
      code: 'private_address',
      message: 'mixed.merchant.example resolves to ::ffff:192.168.1.20, a private or reserved address (private).',
    });
  });

  it('accepts private addresses when the policy allows them (the operator switch), and loopback http only with allowHttpLoopback', async () => {
    const resolve = resolverOf({ 'intranet.example': ['10.20.30.40'], localhost: ['127.0.0.1'] });
    await expect(checkDestination('https://intranet.example/', { allowPrivate: true, allowHttpLoopback: false }, { resolve })).resolves.toMatchObject({
      address: '10.20.30.40',
    });
    await expect(checkDestination('http://localhost:8080/', { allowPrivate: false, allowHttpLoopback: true }, { resolve })).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(checkDestination('http://intranet.example/', { allowPrivate: false, allowHttpLoopback: true }, { resolve })).rejects.toMatchObject({
      code: 'https_required',
    });
  });
});

describe('IP literals in a URL', () => {
  it.each([
    ['https://0x7f000001/hook', '127.0.0.1'],
    ['https://2130706433/hook', '127.0.0.1'],
    ['https://0177.0.0.1/hook', '127.0.0.1'],
    ['https://127.1/hook', '127.0.0.1'],
    ['https://0x0a.0.0.1/hook', '10.0.0.1'],
    ['https://012.0.0.1/hook', '10.0.0.1'],
    ['https://3232235777/hook', '192.168.1.1'],
    ['https://0xa9.0xfe.0xa9.0xfe/latest/meta-data', '169.254.169.254'],
    ['https://0/hook', '0.0.0.0'],
    ['https://[::ffff:7f00:1]/hook', '::ffff:7f00:1'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
    ['https://[0:0:0:0:0:ffff:a00:1]/hook', '::ffff:a00:1'],
    ['https://[::1]/hook', '::1'],
    ['https://[::]/hook', '::'],
    ['https://[fe80::1]/hook', 'fe80::1'],
    ['https://[64:ff9b::a9fe:a9fe]/hook', '64:ff9b::a9fe:a9fe'],
  ])('refuses %s (the address %s) without a lookup', async (url, address) => {
    const resolve = resolverOf({});
    await expect(checkDestination(url, STRICT, { resolve })).rejects.toMatchObject({ code: 'private_address', message: expect.stringContaining(address) });
    expect(resolve.calls).toEqual([]);
  });

  it.each([
    ['https://1572394766/hook', '93.184.215.14'],
    ['https://0x5db8d70e/hook', '93.184.215.14'],
    ['https://[::ffff:5db8:d70e]/hook', '::ffff:5db8:d70e'],
    ['https://[2606:4700:4700::1111]/hook', '2606:4700:4700::1111'],
  ])('accepts %s, the public address %s', async (url, address) => {
    await expect(checkDestination(url, STRICT, { resolve: resolverOf({}) })).resolves.toMatchObject({ address });
  });
});

describe('one request', () => {
  const servers: (Server | TcpServer)[] = [];
  const sockets = new Set<Socket>();
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });
  const listen = async <S extends Server | TcpServer>(server: S): Promise<number> => {
    servers.push(server);
    server.on('connection', (socket: Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const LOOPBACK_DEV = { allowPrivate: false, allowHttpLoopback: true };
  /**
   * A GET of `url` on localhost with a 1 s budget; resolves with the error it ended with. (With
   * less, a loaded machine's event loop may not see a loopback connection before the budget ends.)
   */
  const failureOf = (url: string, options: { policy?: typeof LOOPBACK_DEV; maxRedirects?: number } = {}) =>
    outboundRequest({
      method: 'GET',
      url,
      timeoutMs: 1000,
      maxBodyBytes: 100,
      maxRedirects: options.maxRedirects ?? 0,
      policy: options.policy ?? LOOPBACK_DEV,
      resolve: resolverOf({ localhost: ['127.0.0.1'] }),
    }).catch((e: unknown) => e);

  it('connects to the address it checked: the name is resolved once, and a changed answer is never used', async () => {
    const port = await listen(createHttpServer((_req, res) => res.end('checked')));
    const answers = [['127.0.0.1'], ['10.9.8.7']];
    const calls: string[] = [];
    const resolve: Resolver = async (hostname) => {
      calls.push(hostname);
      return (answers.shift() ?? ['10.9.8.7']).map((address) => ({ address, family: 4 }));
    };
    const response = await outboundRequest({
      method: 'GET',
      url: `http://rebinding.example:${port}/`,
      timeoutMs: 2000,
      maxBodyBytes: 100,
      maxRedirects: 0,
      policy: LOOPBACK_DEV,
      resolve,
    });
    expect({ status: response.status, body: response.body.toString(), remoteAddress: response.remoteAddress, calls }).toEqual({
      status: 200,
      body: 'checked',
      remoteAddress: '127.0.0.1',
      calls: ['rebinding.example'],
    });
  });

  it('ends a name that does not resolve in time within the budget, naming DNS', async () => {
    const started = Date.now();
    const never: Resolver = () => new Promise(() => undefined);
    const error = await outboundRequest({
      method: 'GET',
      url: 'https://cdn.slow-dns.example/logo.png',
      timeoutMs: 300,
      maxBodyBytes: 100,
      maxRedirects: 0,
      policy: STRICT,
      resolve: never,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'timeout',
      phase: 'dns',
      message: 'https://cdn.slow-dns.example: the time budget of 300 ms ran out while resolving cdn.slow-dns.example (DNS).',
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('ends a TLS handshake that does not finish within the budget, naming TLS', async () => {
    // Accepts the TCP connection and never answers the ClientHello.
    const port = await listen(createTcpServer(() => undefined));
    const error = await failureOf(`https://localhost:${port}/`, { policy: { allowPrivate: true, allowHttpLoopback: false } });
    expect(error).toMatchObject({
      code: 'timeout',
      phase: 'tls',
      message: `https://localhost:${port}: the time budget of 1000 ms ran out in the TLS handshake with 127.0.0.1.`,
    });
  });

  it('ends a response that does not come, or does not end, within the budget, naming the response', async () => {
    const port = await listen(
      createHttpServer((req, res) => {
        if (req.url === '/slow-body') res.writeHead(200).write('part of it');
      }),
    );
    expect(await failureOf(`http://localhost:${port}/no-answer`)).toMatchObject({
      code: 'timeout',
      phase: 'response',
      message: `http://localhost:${port}: the time budget of 1000 ms ran out while waiting for the response.`,
    });
    expect(await failureOf(`http://localhost:${port}/slow-body`)).toMatchObject({
      code: 'timeout',
      phase: 'response',
      message: `http://localhost:${port}: the time budget of 1000 ms ran out while reading the response body.`,
    });
  });

  it('spends one budget on every redirect hop', async () => {
    let hops = 0;
    const port = await listen(
      createHttpServer((_req, res) => {
        hops++;
        setTimeout(() => res.writeHead(302, { Location: `/hop${hops}` }).end(), 400);
      }),
    );
    const error = await failureOf(`http://localhost:${port}/`, { maxRedirects: 10 });
    expect(error).toMatchObject({ code: 'timeout', phase: 'response' });
    expect(hops).toBeLessThanOrEqual(3);
  });
});
