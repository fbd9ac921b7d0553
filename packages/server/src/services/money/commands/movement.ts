// Fund and withdraw (master ⇄ agent wallet): decided by domain/money/movement-batch.ts (decideMove). Their
// records and ledger transfers are written with every other command's (records.ts, ledger/); here only what
// they name for the batch's load.
import type { MoveCommand } from '../../../domain/money/movement-batch.ts';
import type { TransactionView } from '../../wallets/transactions.ts';
import type { AgentWalletView } from '../../wallets/wallet-views.ts';
import type { Named } from './module.ts';

/** What a fund or withdraw answers: its transaction, the agent wallet after it, the master's balance. */
export interface MovementResult {
  transaction: TransactionView;
  wallet: AgentWalletView;
  masterBalance: string;
}

/** The agent wallet (answered with its pending count) and its owner's master wallet. */
export function nameMove(command: MoveCommand, named: Named): void {
  named.agentIds.add(command.walletId);
  named.movedAgents.add(command.walletId);
  named.masterUsers.add(command.userId);
}
