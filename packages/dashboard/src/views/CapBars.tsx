// How much of each cap is used, as bars: a meter per cap with the numbers in words beside it. A cap used up
// reads "Reached"; a calendar budget says when it resets; a cap per recipient has no single bar, and a breaker
// (auto_freeze) is no cap, so they are listed in words.
import { type CapBar, type CapNote, capText, percentUsed } from '../activity.ts';
import { resetWords } from '../calendarPeriod.ts';
import { Loading } from '../components/Common.tsx';
import { Meter } from '../components/Meter.tsx';

export function CapBars({ bars, notes, loading }: { bars: CapBar[]; notes: CapNote[]; loading: boolean }) {
  return (
    <section className="card caps" aria-labelledby="caps-title" data-testid="caps">
      <h2 id="caps-title">Caps used</h2>
      <CapList bars={bars} notes={notes} loading={loading} />
    </section>
  );
}

/** The bars and notes alone, for a card of someone else's (the overview shows one list per agent). */
export function CapList({ bars, notes, loading }: { bars: CapBar[]; notes: CapNote[]; loading: boolean }) {
  if (loading) return <Loading />;
  if (bars.length === 0 && notes.length === 0) {
    return <p className="empty">No spending caps: the agent can spend its whole balance.</p>;
  }
  return (
    <ul className="cap-list">
      {bars.map((bar) => (
        <CapBarItem key={bar.policyId} bar={bar} />
      ))}
      {notes.map((note) => (
        <li key={note.policyId} className="cap" data-testid="cap-note">
          <div className="cap-head">
            <span className="cap-title">{note.title}</span>
            <span className="cap-numbers">{note.text}</span>
          </div>
        </li>
      ))}
    </ul>
  );
}

function CapBarItem({ bar }: { bar: CapBar }) {
  const words = capText(bar);
  return (
    <li className={`cap cap-${bar.status}`} data-testid="cap-bar" data-status={bar.status}>
      <div className="cap-head">
        <span className="cap-title">
          {bar.title}
          {bar.resets !== undefined && (
            <span className="cap-resets" data-testid="cap-resets">
              {' '}
              — resets on {resetWords(bar.resets.atMs, bar.resets.period)}
            </span>
          )}
        </span>
        <span className="cap-numbers" data-testid="cap-text">
          {words}
        </span>
      </div>
      <Meter percent={percentUsed(bar)} label={bar.title} valueText={words} />
    </li>
  );
}
