// Every route of the service, in the order the OpenAPI document lists them.
import type { defineRoute } from '../http/route.ts';
import createAgentWallet from './agent-wallets/create.ts';
import freezeAgentWallet from './agent-wallets/freeze.ts';
import fundAgentWallet from './agent-wallets/fund.ts';
import getAgentWallet from './agent-wallets/get.ts';
import listAgentWallets from './agent-wallets/list.ts';
import unfreezeAgentWallet from './agent-wallets/unfreeze.ts';
import updateAgentWallet from './agent-wallets/update.ts';
import withdrawAgentWallet from './agent-wallets/withdraw.ts';
import login from './auth/login.ts';
import logout from './auth/logout.ts';
import me from './auth/me.ts';
import signup from './auth/signup.ts';
import health from './system/health.ts';
import getTransaction from './transactions/get.ts';
import listTransactions from './transactions/list.ts';
import walletBalance from './wallet/balance.ts';
import walletDeposits from './wallet/deposits.ts';
import getWallet from './wallet/get.ts';
import sandboxDeposit from './wallet/sandbox-deposit.ts';

export type AnyRoute = ReturnType<typeof defineRoute>;

export const ROUTES: readonly AnyRoute[] = [
  health,
  signup,
  login,
  logout,
  me,
  getWallet,
  walletBalance,
  walletDeposits,
  sandboxDeposit,
  createAgentWallet,
  listAgentWallets,
  getAgentWallet,
  updateAgentWallet,
  fundAgentWallet,
  withdrawAgentWallet,
  freezeAgentWallet,
  unfreezeAgentWallet,
  listTransactions,
  getTransaction,
];

/** Routes that exist only on some rails. */
export const SANDBOX_ONLY_ROUTES: ReadonlySet<AnyRoute> = new Set([sandboxDeposit]);
