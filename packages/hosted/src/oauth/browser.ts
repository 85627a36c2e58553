import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// The browser side of the sign-in pages (the interaction pages and the /connect pages): cookies,
// posted forms and their CSRF tokens.

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookie(name: string, value: string, options: { secure: boolean; maxAge: number }): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${options.maxAge}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16_384) break;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The CSRF token of a page's forms: an HMAC of what the page is about (`csrf:<uid>` for an
 * interaction) under a key only the server holds, so a form from another page, another
 * interaction or another server does not pass {@link sameSecret}.
 */
export function csrfToken(key: Buffer, subject: string): string {
  return createHmac('sha256', key).update(subject).digest('base64url');
}
