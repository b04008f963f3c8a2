/**
 * Webhook targets must not reach inside (SSRF): https only, no credentials in the URL, and a host
 * that is neither a private, loopback, link-local, unspecified or metadata address (in any of the
 * spellings a URL parser accepts: decimal, hex, octal, and IPv6 forms that embed an IPv4 address)
 * nor an internal or special-use name. Checked when a URL is saved and again before each
 * delivery, so a URL stored under older rules cannot slip through.
 * DNS is not resolved here (the Worker has no resolver API); deliveries never follow redirects,
 * so a public name cannot bounce a request inward. `allowLoopback` is the local-development
 * setting that lets http://127.0.0.1:<port> and http://localhost:<port> receivers in.
 */

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Top-level labels that never name a public host: RFC 6761/6762 special-use names (`localhost`,
 * `local`, `test`, `invalid`), `home.arpa` (RFC 8375) and the rest of infrastructure `.arpa`,
 * `internal` (reserved by ICANN for private use; `metadata.google.internal` lives there), and the
 * suffixes private networks habitually use (RFC 6762 appendix G: `intranet`, `lan`, `corp`,
 * `home`, `private`; and `localdomain`).
 */
const internalTopLabels = new Set([
  ...["localhost", "local", "localdomain", "test", "invalid", "arpa", "internal"],
  ...["intranet", "lan", "corp", "home", "private"],
]);

/**
 * The host as every check must see it: the WHATWG URL parser has already lowercased it, decoded
 * percent-escapes, mapped Unicode through IDNA (full-width letters, `。` dots) to ASCII/punycode and
 * rewritten numeric IPv4 spellings as dotted decimal; what is left is the trailing dot of a fully
 * qualified name (`localhost.`), which names the same host as without it.
 */
export function normalizedHost(url: URL): string {
  return url.hostname.replace(/\.+$/, "");
}

function ipv4(host: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return match ? match.slice(1).map(Number) : null;
}

function privateIpv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** The eight 16-bit pieces of an IPv6 address as the URL parser writes it: hex, `::` for a run of zeros. */
function ipv6Pieces(address: string): number[] {
  const [head = "", tail = ""] = address.split("::");
  const hex = (part: string) => (part ? part.split(":").map((piece) => Number.parseInt(piece, 16)) : []);
  const [high, low] = [hex(head), hex(tail)];
  return [...high, ...new Array<number>(8 - high.length - low.length).fill(0), ...low];
}

/**
 * Only global unicast (2000::/3) is public, so loopback, unspecified, IPv4-mapped and -compatible,
 * NAT64, unique-local (where AWS's fd00:ec2::254 metadata lives), link-local and multicast
 * addresses are all refused without listing them. Inside 2000::/3, Teredo (2001::/32) tunnels to
 * an address nobody can check and 6to4 (2002::/16) to the IPv4 address in its next 32 bits.
 */
function privateIpv6(host: string): boolean {
  const [p0 = 0, p1 = 0, p2 = 0] = ipv6Pieces(host.slice(1, -1));
  if ((p0 & 0xe000) !== 0x2000 || (p0 === 0x2001 && p1 === 0)) return true;
  return p0 === 0x2002 && privateIpv4([p1 >> 8, p1 & 255, p2 >> 8, p2 & 255]);
}

export function checkWebhookUrl(raw: string, allowLoopback: boolean): UrlVerdict {
  const url = URL.parse(raw);
  if (!url) return { ok: false, reason: "Not a URL" };
  if (url.username || url.password) return { ok: false, reason: "Credentials in the URL are not allowed" };
  const host = normalizedHost(url);
  const loopback = host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  if (allowLoopback && loopback && (url.protocol === "http:" || url.protocol === "https:")) return { ok: true, url: url.href };
  if (url.protocol !== "https:") return { ok: false, reason: "Only https URLs are allowed" };
  const dotted = ipv4(host);
  if ((dotted && privateIpv4(dotted)) || (host.startsWith("[") && privateIpv6(host))) {
    return { ok: false, reason: "The host is not a public address (private, loopback, link-local or metadata)" };
  }
  const topLabel = host.slice(host.lastIndexOf(".") + 1);
  if (!dotted && !host.startsWith("[") && (!host.includes(".") || internalTopLabels.has(topLabel)))
    return { ok: false, reason: "The host is an internal name" };
  return { ok: true, url: url.href };
}
