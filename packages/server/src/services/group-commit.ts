// Group commit for small writes that many requests make at once and that need no wallet lock (the audit log's
// lines): the write side of wallets/read-batch.ts. An item joins the next group to be committed, never one already
// in its transaction; a group is one transaction however many items it holds. On PostgreSQL every transaction is a
// WAL flush and a round trip each for BEGIN and COMMIT: measured on the mix of payments and a person's funding,
// the audit log's two transactions per session write took the mix from 1.02× to 0.74× of the rate without them.
// No caller is answered before the COMMIT that made its item durable.
import { assert } from '../errors.ts';
import { createBatchQueue, type Queued } from './batch-queue.ts';

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

/** Commits a group in one transaction and answers each item, in order. */
export type CommitGroup<I, O> = (items: readonly I[]) => Promise<readonly O[]>;

/**
 * `commit(item)` resolves once the group it joined has committed. One group is in flight at a time: items that
 * arrive meanwhile go together in the next (services/batch-queue.ts). A group that fails for another reason than an
 * unreachable database is committed again one item at a time (nothing of it was committed), so one bad item fails
 * alone.
 */
export function createGroupCommit<I, O>(
  commitGroup: CommitGroup<I, O>,
  options: GroupCommitOptions,
): (item: I) => Promise<O> {
  const send = async (group: Queued<I, O>[]): Promise<void> => {
    try {
      answer(group, await commitGroup(group.map((q) => q.item)));
    } catch (error) {
      // The queue fails the group (and, the database unreachable, everything waiting).
      if (options.isUnreachable(error) || group.length === 1) throw error;
      for (const q of group) await commitAlone(commitGroup, q);
    }
  };
  return createBatchQueue(send, { ...options, maxBatch: options.maxItems, maxInFlight: 1 });
}

function answer<I, O>(group: readonly Queued<I, O>[], answers: readonly O[]): void {
  assert(answers.length === group.length, 'a group commit answers every item of its group');
  for (const [i, q] of group.entries()) q.resolve(answers[i]!);
}

async function commitAlone<I, O>(commitGroup: CommitGroup<I, O>, q: Queued<I, O>): Promise<void> {
  try {
    answer([q], await commitGroup([q.item]));
  } catch (error) {
    q.reject(error);
  }
}
