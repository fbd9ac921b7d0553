import { describe, expect, it } from 'vitest';
import { emailError, PASSWORD_MAX, PASSWORD_MIN, passwordError } from '../src/views/authForm.ts';

describe('the login and sign-up checks', () => {
  it('asks for an email address with a name, an @ and a domain (spaces around it ignored)', () => {
    expect(emailError('name@example.com')).toBeNull();
    expect(emailError('  name@example.com ')).toBeNull();
    for (const bad of ['', 'name', 'name@example', '@example.com', 'na me@example.com']) {
      expect(emailError(bad)).toBe('Enter your email address, e.g. name@example.com.');
    }
  });

  it('logs in with any password typed; asks for one when empty', () => {
    expect(passwordError('', false)).toBe('Enter your password.');
    expect(passwordError('x', false)).toBeNull();
    expect(passwordError('x'.repeat(PASSWORD_MAX + 1), false)).toBeNull();
  });

  it('signs up with a password of 8 to 128 characters', () => {
    expect(passwordError('', true)).toBe(`Choose a password of at least ${PASSWORD_MIN} characters.`);
    expect(passwordError('x'.repeat(PASSWORD_MIN - 1), true)).toBe('Use at least 8 characters.');
    expect(passwordError('x'.repeat(PASSWORD_MIN), true)).toBeNull();
    expect(passwordError('x'.repeat(PASSWORD_MAX), true)).toBeNull();
    expect(passwordError('x'.repeat(PASSWORD_MAX + 1), true)).toBe('Use at most 128 characters.');
  });

  it('counts characters as the server does: an emoji is one', () => {
    expect(passwordError('😀'.repeat(PASSWORD_MIN - 1), true)).toBe('Use at least 8 characters.');
    expect(passwordError('😀'.repeat(PASSWORD_MAX), true)).toBeNull();
  });
});
