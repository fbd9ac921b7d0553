// An agent wallet's Policies tab: its policies (each with its actions), the form that adds one, the simulator and
// the history. One part a file, in this folder; this file assembles them.
import type { AgentWallet } from '@agent-wallet/sdk';
import { FULL_LIST_LIMIT } from '../../api/wire.ts';
import { useApp, useCan } from '../../app-context.ts';
import { LoadError, Loading } from '../../components/Common.tsx';
import { K, STALE, useResource } from '../../queries.ts';
import { PolicyHistory } from '../PolicyHistory.tsx';
import { PolicySimulator } from '../PolicySimulator.tsx';
import { AddPolicyForm } from './AddPolicyForm.tsx';
import { PolicyItem } from './PolicyItem.tsx';

export function PoliciesPanel({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const policies = useResource(
    K.policies(wallet.id),
    () => sdk.policies.list(wallet.id, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const data = policies.data;
  const mayManage = useCan()('managePolicies');
  return (
    <>
      <div className="panel-head">
        <h2>Policies</h2>
      </div>
      <p className="hint">
        Every active policy is checked on each payment the agent makes; every one it breaks is reported.
      </p>
      {mayManage && <AddPolicyForm wallet={wallet} />}
      {data === undefined ? (
        policies.error !== undefined ? (
          <LoadError error={policies.error} onRetry={policies.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No policies: the agent can spend its whole balance.</p>
      ) : (
        <ul className="policy-list" data-testid="policy-list">
          {data.items.map((policy) => (
            <PolicyItem key={policy.id} policy={policy} />
          ))}
        </ul>
      )}
      <PolicySimulator wallet={wallet} />
      <PolicyHistory walletId={wallet.id} />
    </>
  );
}
