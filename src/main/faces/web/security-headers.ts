/**
 * The headers every response of `sessionctx serve` carries (docs/WEB.md "Security model"). The policy lets the page
 * load only its own scripts, styles and images (plus `data:` images the build may inline); no inline script, no
 * framing, no form posts elsewhere. There are never any CORS headers: no other origin may read a reply.
 */
import type { ServerResponse } from 'node:http';

/** The Content-Security-Policy of every response. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sets the security headers on a response before anything else is written.
 * @param res - the response.
 */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}
