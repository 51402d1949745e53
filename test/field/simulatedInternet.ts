/**
 * A simulated internet built from Linux network namespaces (ip-netns(8),
 * https://man7.org/linux/man-pages/man8/ip-netns.8.html; the recipe of the project's field
 * notes): the service's namespace and "the internet's", joined by a veth pair and nothing else
 * (no default route, no forwarding: nothing can leave). The internet's hosts listen on public
 * addresses — not the RFC 5737 documentation ranges, which a correct outbound guard refuses —
 * and the real host names resolve to them inside the service's namespace through
 * `/etc/netns/<name>/hosts`, which `ip netns exec` bind-mounts over `/etc/hosts` for the
 * processes it starts. The service's resolver (`/etc/netns/<name>/resolv.conf`) is a DNS server
 * of the internet that never answers, so a name missing from the hosts file costs what it costs
 * on a bad network (glibc's `timeout:5 attempts:2`: 10 s) unless the service gives up first.
 *
 * Namespaces are named per run (`wpsf<pid>-svc`, `wpsf<pid>-net`); {@link removeSimulatedInternet}
 * stops every process still inside them and deletes them. Needs root and iproute2.
 *
 * @module test/field/simulatedInternet
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

/** The merchant of the day: a coffee shop in Kyoto, running the service at its own domain. */
export const MERCHANT_DOMAIN = 'hoshi-coffee.jp';

/** Hosts of the simulated internet: name → public address. */
export const INTERNET_HOSTS = {
  /** The service, behind nginx (PUBLIC_BASE_URL). */
  service: { name: `wallet.${MERCHANT_DOMAIN}`, address: '93.184.216.2' },
  apns: { name: 'api.push.apple.com', address: '17.253.144.10' },
  apnsSandbox: { name: 'api.sandbox.push.apple.com', address: '17.253.144.11' },
  googleOauth: { name: 'oauth2.googleapis.com', address: '142.250.74.10' },
  googleWallet: { name: 'walletobjects.googleapis.com', address: '142.250.74.42' },
  /** Google's callback signing keys (`https://pay.google.com/gp/m/issuer/keys`). */
  googleKeys: { name: 'pay.google.com', address: '142.250.74.78' },
  /** The merchant's CDN, where template images live. */
  cdn: { name: `cdn.${MERCHANT_DOMAIN}`, address: '151.101.1.10' },
  /** The merchant's webhook receiver (the address the issue measured refused). */
  webhooks: { name: `hooks.${MERCHANT_DOMAIN}`, address: '93.184.215.14' },
  /** A DNS server that never answers. */
  resolver: { name: 'dns.quad9.net', address: '9.9.9.9' },
} as const;

/** A routed address where no host answers: connections to it hang (packets are dropped). */
export const STALLED_ADDRESS = '151.101.65.10';

/**
 * Names the service's hosts file gives to addresses the outbound guard must refuse, or that
 * change during the day: name → address.
 */
export const SERVICE_SIDE_NAMES: Record<string, string> = {
  [`intranet.${MERCHANT_DOMAIN}`]: '10.20.30.40',
  [`metadata.${MERCHANT_DOMAIN}`]: '169.254.169.254',
  [`mapped.${MERCHANT_DOMAIN}`]: '::ffff:10.20.30.40',
  [`loopback.${MERCHANT_DOMAIN}`]: '127.0.0.1',
  [`hooks-moved.${MERCHANT_DOMAIN}`]: INTERNET_HOSTS.webhooks.address,
  [`hooks-relocated.${MERCHANT_DOMAIN}`]: INTERNET_HOSTS.webhooks.address,
  [`stalled-cdn.${MERCHANT_DOMAIN}`]: STALLED_ADDRESS,
};

/**
 * The TLS certificates of the internet's hosts, by the names each carries: one per host, but
 * Google's API hosts share one (Google's carries every *.googleapis.com name; one stand-in answers
 * at both addresses), and the merchant's receiver answers for the names that move later too.
 */
export const CERTIFICATE_NAMES: string[][] = [
  [INTERNET_HOSTS.googleOauth.name, INTERNET_HOSTS.googleWallet.name],
  [INTERNET_HOSTS.webhooks.name, `hooks-moved.${MERCHANT_DOMAIN}`, `hooks-relocated.${MERCHANT_DOMAIN}`],
  ...[INTERNET_HOSTS.service, INTERNET_HOSTS.apns, INTERNET_HOSTS.apnsSandbox, INTERNET_HOSTS.googleKeys, INTERNET_HOSTS.cdn].map((host) => [host.name]),
];

/** One run's simulated internet. */
export interface SimulatedInternet {
  /** The service's namespace. */
  svc: string;
  /** The internet's namespace. */
  net: string;
  /** The service's hosts file (`/etc/netns/<svc>/hosts`); rewrite it in place to change what names resolve to. */
  svcHostsFile: string;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** The hosts file of the service's namespace, with `overrides` (name → address) applied. */
export function serviceHostsFile(overrides: Record<string, string> = {}): string {
  const names: Record<string, string> = {
    ...Object.fromEntries(Object.values(INTERNET_HOSTS).map((host) => [host.name, host.address])),
    ...SERVICE_SIDE_NAMES,
    ...overrides,
  };
  return ['127.0.0.1 localhost', '::1 localhost ip6-localhost', ...Object.entries(names).map(([name, address]) => `${address} ${name}`), ''].join('\n');
}

/** Names of a run's namespaces. */
export function namespacesOf(runId: string): SimulatedInternet {
  const svc = `${runId}-svc`;
  return { svc, net: `${runId}-net`, svcHostsFile: `/etc/netns/${svc}/hosts` };
}

/**
 * Creates the namespaces, the veth pair, addresses and routes, and the hosts and resolver
 * files. On failure, what was made is removed before the error is thrown.
 * @param runId A short name (at most 9 characters: interface names are limited to 15).
 */
export function createSimulatedInternet(runId: string): SimulatedInternet {
  const internet = namespacesOf(runId);
  const { svc, net } = internet;
  try {
    ip('netns', 'add', svc);
    ip('netns', 'add', net);
    ip('link', 'add', `${runId}s`, 'type', 'veth', 'peer', 'name', `${runId}n`);
    ip('link', 'set', `${runId}s`, 'netns', svc);
    ip('link', 'set', `${runId}n`, 'netns', net);
    for (const [ns, device] of [
      [svc, `${runId}s`],
      [net, `${runId}n`],
    ] as const) {
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('-n', ns, 'link', 'set', device, 'up');
    }
    ip('-n', svc, 'addr', 'add', `${INTERNET_HOSTS.service.address}/32`, 'dev', `${runId}s`);
    ip('-n', net, 'route', 'add', `${INTERNET_HOSTS.service.address}/32`, 'dev', `${runId}n`);
    for (const host of Object.values(INTERNET_HOSTS)) {
      if (host === INTERNET_HOSTS.service) continue;
      ip('-n', net, 'addr', 'add', `${host.address}/32`, 'dev', `${runId}n`);
      ip('-n', svc, 'route', 'add', `${host.address}/32`, 'dev', `${runId}s`);
    }
    // Through a host of the internet, which does not forward it: the packets are dropped there,
    // unanswered (an on-link route would fail at once, as no one answers ARP for the address).
    ip('-n', svc, 'route', 'add', `${STALLED_ADDRESS}/32`, 'via', INTERNET_HOSTS.cdn.address, 'dev', `${runId}s`, 'onlink');
    mkdirSync(`/etc/netns/${svc}`, { recursive: true });
    mkdirSync(`/etc/netns/${net}`, { recursive: true });
    writeFileSync(internet.svcHostsFile, serviceHostsFile());
    writeFileSync(`/etc/netns/${svc}/resolv.conf`, `nameserver ${INTERNET_HOSTS.resolver.address}\noptions timeout:5 attempts:2\n`);
    writeFileSync(`/etc/netns/${net}/hosts`, `127.0.0.1 localhost\n${INTERNET_HOSTS.service.address} ${INTERNET_HOSTS.service.name}\n`);
    writeFileSync(`/etc/netns/${net}/resolv.conf`, 'nameserver 127.0.0.1\n');
    return internet;
  } catch (error) {
    removeSimulatedInternet(internet);
    throw error;
  }
}

/** The ids of the processes inside a namespace (`ip netns pids`), none when it is gone. */
export function processesIn(namespace: string): number[] {
  try {
    return execFileSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Stops what still runs in the namespaces (SIGKILL: the test stopped its own processes before),
 * deletes them (the veth pair goes with them) and their files under /etc/netns. Never throws.
 * @returns The ids of the processes it had to stop.
 */
export function removeSimulatedInternet(internet: SimulatedInternet): number[] {
  const stopped: number[] = [];
  for (const ns of [internet.svc, internet.net]) {
    for (const pid of processesIn(ns)) {
      try {
        process.kill(pid, 'SIGKILL');
        stopped.push(pid);
      } catch {
        // Gone already.
      }
    }
    try {
      ip('netns', 'del', ns);
    } catch {
      // Not made, or already deleted.
    }
    rmSync(`/etc/netns/${ns}`, { recursive: true, force: true });
  }
  return stopped;
}
