/**
 * The `host:port` grammar of `WORLD_BIND` (world-spec §10), read by the gateway and by
 * `world up`, and written back when `world up` hands each gateway replica its own port. Pure.
 */
import { DEFAULT_HTTP_PORT, MAX_TCP_PORT } from './limits.js';

/** A listening address: a host name or IP literal (IPv6 without brackets) and a TCP port. */
export interface HostPort {
  host: string;
  /** 0 (a free port, tests) to MAX_TCP_PORT */
  port: number;
}

/** `WORLD_BIND` when unset: loopback only (world-spec §10). */
export const DEFAULT_BIND = `127.0.0.1:${DEFAULT_HTTP_PORT}`;

/** `host:port`, or `[v6]:port`; a bare host holds no `:`, `[`, `]` or space. */
const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):([0-9]{1,5})$/;

/**
 * Parses `host:port` (IPv6 as `[::1]:7644`, returned without the brackets).
 * @returns the address, or null when the text is not host:port or the port exceeds MAX_TCP_PORT
 *   (each caller words its own refusal)
 */
export function parseHostPort(text: string): HostPort | null {
  const match = HOST_PORT.exec(text);
  if (match === null) return null;
  const port = Number(match[3]);
  if (port > MAX_TCP_PORT) return null;
  return { host: match[1] ?? match[2]!, port };
}

/** The `host:port` text of an address, an IPv6 host in brackets: what parseHostPort reads back. */
export function formatHostPort(address: HostPort): string {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}
