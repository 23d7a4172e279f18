import { isIPv6 } from 'node:net';

const REG_NAME = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+`;
const IP_FUTURE = String.raw`v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+`;
const HOST = new RegExp(String.raw`^(?:${REG_NAME}|\[(?:${IP_FUTURE}|([0-9A-Fa-f:.]+))\])(?::[0-9]*)?$`);

/**
 * Whether a Host header's value is what RFC 9112 (3.2) allows: `uri-host [ ":" port ]`, with the
 * host of RFC 3986 (3.2.2), a registered name or IPv4 address (unreserved characters, sub-delims,
 * percent-encodings) or an IPv6 address or IPvFuture in brackets, and a port of digits. An empty
 * host is refused too, as an http URI must name one (RFC 9110, 4.2.1); and so is a zone id
 * (`[fe80::1%25eth0]`, RFC 6874, which RFC 9112 does not take up).
 */
export function isValidHost(value: string): boolean {
  const found = HOST.exec(value);
  // What stands in brackets, unless an IPvFuture, must be an IPv6 address.
  return found !== null && (found[1] === undefined || isIPv6(found[1]));
}
