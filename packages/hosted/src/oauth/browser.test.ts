import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cookie, csrfToken, readCookie, readForm, sameSecret, sha256 } from './browser.js';

const withCookie = (header: string | undefined) => ({ headers: { cookie: header } }) as IncomingMessage;
const body = (...chunks: string[]) =>
  Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as IncomingMessage;

describe('browser helpers of the sign-in pages', () => {
  it('writes a host-wide HttpOnly Lax cookie, Secure only over HTTPS, and clears it with Max-Age=0', () => {
    expect(cookie('__Host-xmcp-login', 'v', { secure: true, maxAge: 600 })).toBe(
      '__Host-xmcp-login=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=600; Secure',
    );
    expect(cookie('xmcp-login', '', { secure: false, maxAge: 0 })).toBe(
      'xmcp-login=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
    );
  });

  it('reads only the named cookie, keeping "=" in its value; a prefix or suffix of the name is another cookie', () => {
    const req = withCookie('xmcp-login-old=a; other=b;  xmcp-login=c2Vj=cmV0= ; x-xmcp-login=d');
    expect(readCookie(req, 'xmcp-login')).toBe('c2Vj=cmV0=');
    expect(readCookie(req, 'missing')).toBeUndefined();
    expect(readCookie(withCookie(undefined), 'xmcp-login')).toBeUndefined();
  });

  it('compares secrets in constant time and refuses a missing, empty, shorter or longer one', () => {
    const secret = sha256('binding');
    expect(sameSecret(secret, secret)).toBe(true);
    for (const given of [null, undefined, '', secret.slice(1), `${secret}x`, sha256('other')]) {
      expect(sameSecret(given, secret)).toBe(false);
    }
  });

  it('binds a CSRF token to its subject and key: another interaction or server does not pass', () => {
    const key = Buffer.alloc(32, 1);
    const token = csrfToken(key, 'csrf:uid-1');
    expect(sameSecret(token, csrfToken(key, 'csrf:uid-1'))).toBe(true);
    expect(sameSecret(token, csrfToken(key, 'csrf:uid-2'))).toBe(false);
    expect(sameSecret(token, csrfToken(Buffer.alloc(32, 2), 'csrf:uid-1'))).toBe(false);
  });

  it('reads a urlencoded form across chunks, and stops at 16 KiB', async () => {
    const form = await readForm(body('csrf=a%2Bb&deci', 'sion=approve&decision=read'));
    expect(form.get('csrf')).toBe('a+b');
    expect(form.getAll('decision')).toEqual(['approve', 'read']);
    const big = await readForm(body('a=1&', `b=${'x'.repeat(16_384)}`, '&c=3'));
    expect(big.get('a')).toBe('1');
    expect(big.has('b')).toBe(false);
    expect(big.has('c')).toBe(false);
  });
});
