import { BlockList, isIP } from "node:net";

/**
 * Which client address sign-in and pairing limits count (REBOUND_TRUSTED_PROXIES), as Express's
 * `trust proxy` decides it: the connection's address, then the X-Forwarded-For entries right to left, each
 * believed only while the one before it is a trusted proxy.
 * - none (unset): X-Forwarded-For is ignored; the address is the connection's (a client can write any
 *   X-Forwarded-For it likes, and Next keeps what it sent).
 * - a hop count `n`: the n proxies nearest the console are trusted (1: one ingress in front).
 * - a list of addresses and CIDRs, and `loopback`, `linklocal`, `uniquelocal` (10/8, 172.16/12,
 *   192.168/16, fc00::/7: pod networks): a hop is trusted when its address is in the list.
 */
export type TrustedProxies =
  | { kind: "none" }
  | { kind: "hops"; hops: number }
  | { kind: "list"; entries: string[] };

export const NO_TRUSTED_PROXIES: TrustedProxies = { kind: "none" };

const PRESETS: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

const TRUSTED_PROXIES_HELP =
  "expected a hop count (e.g. 1) or a comma-separated list of addresses, CIDRs, loopback, linklocal, uniquelocal";

/** An address or CIDR as [address, prefix, family], or null when it is neither. */
function subnetOf(entry: string): [string, number, "ipv4" | "ipv6"] | null {
  const [address = "", prefixText, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return null;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? "0") || prefix > bits) return null;
  return [address, prefix, version === 4 ? "ipv4" : "ipv6"];
}

/** The setting's value, or an error message that says what is wrong. */
export function parseTrustedProxies(value: string | undefined): TrustedProxies | { error: string } {
  const text = value?.trim() ?? "";
  if (text === "" || text === "none") return NO_TRUSTED_PROXIES;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > 32) return { error: `a hop count is 1 to 32, ${TRUSTED_PROXIES_HELP}` };
    return { kind: "hops", hops };
  }
  const entries = text.split(",").map((entry) => entry.trim());
  const bad = entries.find((entry) => !PRESETS[entry] && !subnetOf(entry));
  if (bad !== undefined) return { error: `"${bad}" is not an address or CIDR: ${TRUSTED_PROXIES_HELP}` };
  return { kind: "list", entries };
}

/** `::ffff:10.0.0.1` (an IPv4 client of a dual-stack socket) as `10.0.0.1`. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function blockListOf(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries.flatMap((one) => PRESETS[one] ?? [one])) {
    const subnet = subnetOf(entry);
    if (subnet) list.addSubnet(...subnet);
  }
  return list;
}

const blockLists = new WeakMap<TrustedProxies, BlockList>();

function isTrusted(trust: TrustedProxies, address: string, hop: number): boolean {
  switch (trust.kind) {
    case "none":
      return false;
    case "hops":
      return hop < trust.hops;
    case "list": {
      const version = isIP(address);
      if (version === 0) return false;
      let list = blockLists.get(trust);
      if (!list) {
        list = blockListOf(trust.entries);
        blockLists.set(trust, list);
      }
      return list.check(address, version === 4 ? "ipv4" : "ipv6");
    }
    default:
      return trust satisfies never;
  }
}

/**
 * The client's address: the connection's (`peer`), or the X-Forwarded-For entry the trusted proxies vouch
 * for. "unknown" when the connection's address is not known (then no header is believed either).
 */
export function resolveClientAddress(opts: {
  peer: string | undefined;
  forwardedFor: string | null;
  trust: TrustedProxies;
}): string {
  if (!opts.peer) return "unknown";
  const forwarded = (opts.forwardedFor ?? "")
    .split(",")
    .map((entry) => plain(entry.trim()))
    .filter((entry) => entry !== "");
  const hops = [plain(opts.peer), ...forwarded.reverse()];
  for (let hop = 0; hop < hops.length - 1; hop++) {
    if (!isTrusted(opts.trust, hops[hop] ?? "", hop)) return hops[hop] ?? "unknown";
  }
  return hops.at(-1) ?? "unknown";
}
