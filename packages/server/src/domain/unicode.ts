// Text that is not Unicode. A JSON string may spell half of a surrogate pair on its own ("\ud800"); JavaScript
// keeps it, SQLite stores and echoes it, PostgreSQL refuses it and nothing can encode it as UTF-8. Such text is
// refused at the door, once for every field of every body.

const UNPAIRED_SURROGATE = /\p{Cs}/u;

export interface SurrogateFinding {
  /** The path of the string holding it (a field name's: the path of the object holding that field). */
  path: string[];
  inFieldName: boolean;
}

interface Visit {
  value: unknown;
  key: string;
  parent: Visit | null;
}

/**
 * Where the first unpaired surrogate in a parsed JSON value sits, or null when every string (field names
 * included) is well-formed. Walks with its own stack and builds a path only for what it finds: a 64 KiB body can
 * nest thirty thousand levels deep.
 */
export function findUnpairedSurrogate(value: unknown): SurrogateFinding | null {
  const stack: Visit[] = [{ value, key: '', parent: null }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const current = visit.value;
    if (typeof current === 'string') {
      if (UNPAIRED_SURROGATE.test(current)) return { path: pathOf(visit), inFieldName: false };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index], key: String(index), parent: visit });
      }
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, element] of Object.entries(current).reverse()) {
        if (UNPAIRED_SURROGATE.test(key)) return { path: pathOf(visit), inFieldName: true };
        stack.push({ value: element, key, parent: visit });
      }
    }
  }
  return null;
}

function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let at = visit; at.parent !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Whether JSON text may hold an unpaired surrogate once parsed. Text decoded from UTF-8 never holds one (the
 * bytes of a lone surrogate decode as U+FFFD), so only a \u escape of one can: other bodies need no walk.
 */
export function mayHoldSurrogateEscape(jsonText: string): boolean {
  return /\\u[dD][89a-fA-F]/.test(jsonText);
}
