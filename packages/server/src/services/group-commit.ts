// Group commit for small writes that many requests make at once and that need no wallet lock (the audit log's
// lines): the write side of wallets/read-batch.ts. An item joins the next group to be committed, never one already
// in its transaction; a group is one transaction however many items it holds. On PostgreSQL every transaction is a
// WAL flush and a round trip each for BEGIN and COMMIT: measured on the mix of payments and a person's funding,
// the audit log's two transactions per session write took the mix from 1.02× to 0.74× of the rate without them.
// No caller is answered before the COMMIT that made its item durable.
import { AppError, assert } from '../errors.ts';

export interface GroupCommitOptions {
  /** Items in one transaction: bounds its statements' parameters and how long it holds its locks. */
  maxItems: number;
  /**
   * Items waiting for a group; beyond it an item is refused at once (503) rather than queue behind a database
   * that stopped answering.
   */
  maxWaiting: number;
  /** A failure that says the database is unreachable: the items still waiting fail with it at once. */
  isUnreachable: (error: unknown) => boolean;
}

const busy = () => new AppError('SERVICE_UNAVAILABLE', 'the database is busy; retry shortly');

/** Commits a group in one transaction and answers each item, in order. */
export type CommitGroup<I, O> = (items: readonly I[]) => Promise<readonly O[]>;

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * `commit(item)` resolves once the group it joined has committed. One group is in flight at a time: items that
 * arrive meanwhile go together in the next. A group that fails for another reason than an unreachable database is
 * committed again one item at a time (nothing of it was committed), so one bad item fails alone.
 */
export function createGroupCommit<I, O>(
  commitGroup: CommitGroup<I, O>,
  options: GroupCommitOptions,
): (item: I) => Promise<O> {
  assert(
    options.maxItems >= 1 && options.maxWaiting >= options.maxItems,
    'a group commit needs room for one group',
  );
  const waiting: Waiting<I, O>[] = [];
  let inFlight = false;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (inFlight || waiting.length === 0) return;
    inFlight = true;
    void send(waiting.splice(0, options.maxItems)).finally(() => {
      inFlight = false;
      schedule();
    });
  };
  // setImmediate, not a microtask: the requests of one turn of the event loop join one group.
  const schedule = (): void => {
    if (scheduled || inFlight || waiting.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };
  const send = async (group: Waiting<I, O>[]): Promise<void> => {
    try {
      answer(group, await commitGroup(group.map((w) => w.item)));
    } catch (error) {
      if (options.isUnreachable(error)) {
        // Never committed, so nothing is lost: what waits would only wait a further timeout to fail the same way.
        for (const w of [...group, ...waiting.splice(0)]) w.reject(error);
        return;
      }
      if (group.length === 1) return group[0]!.reject(error);
      for (const w of group) await commitAlone(commitGroup, w);
    }
  };
  return (item) => {
    if (waiting.length >= options.maxWaiting) return Promise.reject(busy());
    return new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
  };
}

function answer<I, O>(group: readonly Waiting<I, O>[], answers: readonly O[]): void {
  assert(answers.length === group.length, 'a group commit answers every item of its group');
  for (const [i, w] of group.entries()) w.resolve(answers[i]!);
}

async function commitAlone<I, O>(commitGroup: CommitGroup<I, O>, w: Waiting<I, O>): Promise<void> {
  try {
    answer([w], await commitGroup([w.item]));
  } catch (error) {
    w.reject(error);
  }
}
