/**
 * Webhook targets must not reach inside (SSRF): https only, no credentials in the URL, and a host
 * that is neither a private, loopback, link-local, unspecified or metadata address (in any of the
 * spellings a URL parser accepts: decimal, hex, octal, IPv4-mapped IPv6) nor an internal name.
 * DNS is not resolved here (the Worker has no resolver API); deliveries never follow redirects,
 * so a public name cannot bounce a request inward. `allowLoopback` is the local-development
 * setting that lets http://127.0.0.1:<port> and http://localhost:<port> receivers in.
 */

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

const internalNames = [
  /^localhost$/,
  /\.localhost$/,
  /\.internal$/,
  /\.local$/,
  /^metadata\.google\.internal$/,
  /^instance-data$/,
];

function ipv4(host: string): number[] | null {
  // The WHATWG URL parser has already turned decimal, hex and octal forms into dotted decimal.
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

function privateIpv6(host: string): boolean {
  const address = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (address === "::" || address === "::1") return true;
  const mapped = /^::ffff:(.+)$/.exec(address);
  if (mapped?.[1]) {
    const dotted = ipv4(mapped[1]);
    if (dotted) return privateIpv4(dotted);
    const [high = "0", low = "0"] = mapped[1].split(":");
    const value = (Number.parseInt(high, 16) << 16) | Number.parseInt(low, 16);
    return privateIpv4([(value >>> 24) & 255, (value >>> 16) & 255]);
  }
  return /^f[cd]/.test(address) || /^fe[89ab]/.test(address) || /^ff/.test(address);
}

export function checkWebhookUrl(raw: string, allowLoopback: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "Not a URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "Credentials in the URL are not allowed" };
  const host = url.hostname.toLowerCase();
  const loopback = host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  if (allowLoopback && loopback && (url.protocol === "http:" || url.protocol === "https:")) return { ok: true, url: url.href };
  if (url.protocol !== "https:") return { ok: false, reason: "Only https URLs are allowed" };
  const dotted = ipv4(host);
  if ((dotted && privateIpv4(dotted)) || (host.startsWith("[") && privateIpv6(host))) {
    return { ok: false, reason: "The host is a private, loopback, link-local or metadata address" };
  }
  if (!host.includes(".") || internalNames.some((pattern) => pattern.test(host)))
    return { ok: false, reason: "The host is an internal name" };
  return { ok: true, url: url.href };
}
