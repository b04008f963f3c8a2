/**
 * The part of a client address that identifies one client for the per-IP window.
 *
 * An IPv4 address is one client. An IPv6 client is its /64: a single subscriber line or host
 * usually holds a whole /64 and picks a new address in it at will (privacy extensions, RFC 8981),
 * so counting full addresses would hand every client 2^64 windows. Spellings of one address give
 * one key: zero-compressed or expanded, any case, with or without brackets or a zone id, and an
 * IPv4 address embedded in IPv6 (IPv4-mapped `::ffff:a.b.c.d` or the NAT64 prefix `64:ff9b::/96`)
 * counts as that IPv4 address. Anything that is not an address shares one `invalid` key.
 */
export function clientAddressKey(address: string): string {
  const text = address.trim().toLowerCase();
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!bare.includes(":")) return ipv4Octets(bare)?.join(".") ?? "invalid";
  const groups = ipv6Groups(bare.split("%")[0] as string);
  if (!groups) return "invalid";
  const embedded = embeddedIpv4(groups);
  if (embedded) return embedded;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The four octets of a dotted-decimal IPv4 address, or null. */
function ipv4Octets(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part))) return null;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (half: string | undefined): number[] | null => {
    if (!half) return [];
    const groups: number[] = [];
    const parts = half.split(":");
    for (const [index, part] of parts.entries()) {
      if (index === parts.length - 1 && part.includes(".")) {
        const octets = ipv4Octets(part);
        if (!octets) return null;
        groups.push(((octets[0] as number) << 8) | (octets[1] as number), ((octets[2] as number) << 8) | (octets[3] as number));
      } else if (/^[0-9a-f]{1,4}$/.test(part)) {
        groups.push(Number.parseInt(part, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/** The IPv4 address an IPv4-mapped or NAT64 (64:ff9b::/96) IPv6 address carries, or null. */
function embeddedIpv4(groups: number[]): string | null {
  const prefix = groups.slice(0, 6).join(":");
  if (prefix !== "0:0:0:0:0:65535" && prefix !== "100:65435:0:0:0:0") return null;
  const [high, low] = groups.slice(6) as [number, number];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}
