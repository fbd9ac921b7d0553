// What every shell's top shows: the name with the sandbox's pill, the sandbox banner, the account.
import { useState } from 'react';
import { ROLE_WORDS, type Role } from '../roles.ts';

/** The name in the top bar, with the sandbox's pill: the same on every shell. */
export function Brand({ sandbox }: { sandbox: boolean }) {
  return (
    <div className="brand">
      <span>Agent Wallet</span>
      {sandbox && (
        <span className="sandbox-pill" data-testid="sandbox-pill">
          Sandbox
        </span>
      )}
    </div>
  );
}

export function SandboxBanner() {
  return (
    <div className="sandbox-banner" data-testid="sandbox-banner">
      <strong>SANDBOX</strong> <span className="banner-long">— simulated money for trying things out;</span>
      <span className="banner-short"> ·</span> nothing here is real USDC.
    </div>
  );
}

/** Who is logged in, as what, and the way out. */
export function Account({
  email,
  role,
  logout,
}: {
  email: string;
  role: Role | null;
  logout: () => Promise<void>;
}) {
  const [loggingOut, setLoggingOut] = useState(false);
  return (
    <div className="account">
      <span className="account-email" title={email}>
        {email}
      </span>
      {role !== null && (
        <span className="role-pill" data-testid="account-role" data-role={role}>
          {ROLE_WORDS[role].name}
        </span>
      )}
      <button
        type="button"
        className="button secondary small"
        disabled={loggingOut}
        onClick={() => {
          setLoggingOut(true);
          void logout();
        }}
      >
        Log out
      </button>
    </div>
  );
}
