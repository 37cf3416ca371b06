import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';

/** The paths answered in MCP's own error shape. */
/** Case-insensitive: Express routes `/MCP` to the MCP controller too, so it gets the same guard. */
const MCP_PATH = /^\/mcp(\/|\?|$)/i;

/** The hostnames a loopback bind answers to: the SDK's localhost set plus the bind host itself. */
export function loopbackHostnames(bindHost: string): string[] {
  const own = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return [...new Set([...localhostAllowedHostnames(), ...localhostAllowedOrigins(), own])];
}

/**
 * DNS-rebinding defence for a loopback bind (MCP 2025-11-25 transports: "invalid Origin → 403";
 * ecosystem.md §2.1): a Host that is not a loopback name, or an Origin from elsewhere, is refused
 * with 403 before anything else runs. `/mcp` answers with the SDK's own guards (a JSON-RPC
 * envelope); every other route with the REST envelope (world-spec §5.1), class `Forbidden`.
 * @param hostnames the allowed hostnames (IPv6 in brackets)
 * @returns an Express-style middleware
 */
export function hostOriginGuard(hostnames: string[]) {
  const mcpHost = hostHeaderValidation(hostnames);
  const mcpOrigin = originValidation(hostnames);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (MCP_PATH.test(req.url ?? '')) {
      if (mcpHost(req, res) && mcpOrigin(req, res)) next();
      return;
    }
    const host = validateHostHeader(req.headers.host, hostnames);
    const origin = host.ok ? validateOriginHeader(req.headers.origin, hostnames) : host;
    if (origin.ok) return next();
    res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: { class: 'Forbidden', message: origin.message } }));
  };
}
