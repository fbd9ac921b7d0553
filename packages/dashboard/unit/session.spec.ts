// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { clearSession, jwtExpiry, readSession, sessionFrom, writeSession } from '../src/session.ts';

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function jwt(claims: Record<string, unknown>): string {
  return `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(JSON.stringify(claims))}.signature`;
}

const user = { id: 'usr_1', email: 'a@example.com', createdAt: '2026-01-01T00:00:00.000Z' };

beforeEach(() => sessionStorage.clear());

describe('session', () => {
  it('reads the exp claim of a JWT', () => {
    expect(jwtExpiry(jwt({ sub: 'usr_1', exp: 1_900_000_000 }))).toBe(1_900_000_000_000);
    expect(jwtExpiry(jwt({ sub: 'usr_1' }))).toBeNull();
    expect(jwtExpiry('not-a-jwt')).toBeNull();
    expect(jwtExpiry('a.%%%.c')).toBeNull();
  });

  it('survives a reload through sessionStorage, never localStorage', () => {
    const session = sessionFrom(jwt({ exp: Date.now() / 1000 + 3600 }), user)!;
    writeSession(session);
    expect(localStorage.length).toBe(0);
    const read = readSession();
    expect(read.session?.token).toBe(session.token);
    expect(read.session?.user.email).toBe('a@example.com');
  });

  it('drops an expired session and says so', () => {
    writeSession(sessionFrom(jwt({ exp: Math.floor(Date.now() / 1000) - 1 }), user)!);
    expect(readSession()).toEqual({ session: null, expired: true });
    expect(sessionStorage.length).toBe(0);
  });

  it('drops garbage', () => {
    sessionStorage.setItem('agent-wallet.session', '{"token": 5}');
    expect(readSession()).toEqual({ session: null, expired: false });
    expect(sessionStorage.length).toBe(0);
  });

  it('clears', () => {
    writeSession(sessionFrom(jwt({ exp: Date.now() / 1000 + 60 }), user)!);
    clearSession();
    expect(readSession().session).toBeNull();
  });
});
