/**
 * The headers of every workbench response (README "The workbench"): a strict
 * Content-Security-Policy (scripts, styles and connections from the gateway's own origin only, no
 * inline script, no framing), `nosniff`, referrers only to the gateway's own origin, and `no-store` so pages with data stay out of
 * caches.
 */
import type { NextFunction, Request, Response } from 'express';

/** The Content-Security-Policy of every workbench response (CSP Level 3). */
const WORKBENCH_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Sets the workbench's security headers on `res`. */
export function secure(res: Response): void {
  res.setHeader('Content-Security-Policy', WORKBENCH_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the Why
  // form's POST, which the loopback Origin guard refuses (Fetch, "append a request `Origin`
  // header": a POST under no-referrer sends `null`); no page links to another origin
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
}

/**
 * Middleware: every response under /workbench carries the headers of `secure`, a route's own
 * pages and also what no route answers (the 404 of /workbench/nonexistent, /workbench//entry/1).
 */
export function secureWorkbench(req: Request, res: Response, next: NextFunction): void {
  if (req.path === '/workbench' || req.path.startsWith('/workbench/')) secure(res);
  next();
}
