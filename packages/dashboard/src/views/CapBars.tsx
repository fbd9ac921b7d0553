// How much of each cap is used, as bars: a meter per cap with the numbers in words beside it.
import { type CapBar, percentUsed } from '../activity.ts';
import { Loading } from '../components/Common.tsx';
import { Meter } from '../components/Meter.tsx';
import { plural } from '../format.ts';
import { formatAmount, fromMicros, groupThousands } from '../money.ts';

function amountOf(bar: CapBar, value: bigint): string {
  return bar.unit === 'payments'
    ? plural(Number(value), 'payment')
    : `${formatAmount(fromMicros(value))} USDC`;
}

export function capText(bar: CapBar): string {
  const left = bar.limit > bar.used ? bar.limit - bar.used : 0n;
  const used =
    bar.unit === 'payments' ? groupThousands(String(bar.used)) : formatAmount(fromMicros(bar.used));
  return `${used} of ${amountOf(bar, bar.limit)} used · ${amountOf(bar, left)} left`;
}

export function CapBars({ bars, loading }: { bars: CapBar[]; loading: boolean }) {
  return (
    <section className="card caps" aria-labelledby="caps-title" data-testid="caps">
      <h2 id="caps-title">Caps used</h2>
      {loading ? (
        <Loading />
      ) : bars.length === 0 ? (
        <p className="empty">No spending caps: the agent can spend its whole balance.</p>
      ) : (
        <ul className="cap-list">
          {bars.map((bar) => {
            const percent = percentUsed(bar);
            return (
              <li key={bar.policyId} className="cap" data-testid="cap-bar">
                <div className="cap-head">
                  <span className="cap-title">{bar.title}</span>
                  <span className="cap-numbers" data-testid="cap-text">
                    {capText(bar)}
                  </span>
                </div>
                <Meter percent={percent} label={bar.title} valueText={capText(bar)} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
