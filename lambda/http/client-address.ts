import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client address limits are counted under: an IPv4 address as it is, an IPv6 address by its
 * /64 (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give one
 * caller billions of budgets), an IPv4-mapped IPv6 address as its IPv4 address. Anything else is
 * `unknown`, which shares one budget.
 */
export function clientAddress(ip: string | undefined | null): string {
  const raw = (ip ?? '').trim().replace(/^\[(.*)\]$/, '$1');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(raw)) return raw;
  if (!isIPv6(raw)) return 'unknown';
  return `${expandIPv6(raw).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower case, without leading zeros. */
function expandIPv6(address: string): string[] {
  const withoutZone = address.split('%')[0] ?? '';
  const [head = '', tail] = withoutZone.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 address (`64:ff9b::192.0.2.1`) stands for two groups.
  const width = (parts: string[]) => parts.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - width(left) - width(right))).fill('0'), ...right];
  return groups.map((g) => (g.includes('.') ? g : Number.parseInt(g, 16).toString(16)));
}
