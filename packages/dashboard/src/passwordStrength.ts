// How hard a new password is to guess, judged as the server judges it (packages/server/src/domain/identity/passwords.ts):
// zxcvbn from zxcvbn-ts with its common and English dictionaries, the same limits and the same least score. The
// server decides; this only shows the estimate while the person types and spares a refused request. The
// dictionaries weigh about a megabyte: they are a chunk of their own, fetched when a new password is first typed.

/** The least score (0-4) a new password needs: the server's PASSWORD_SCORE_MIN. */
export const PASSWORD_SCORE_MIN = 3;
/** The server's estimate reads the first 64 characters (PASSWORD_ESTIMATE_LENGTH_MAX), and so does this one. */
const ESTIMATE_LENGTH_MAX = 64;
/** l33t variants tried, as on the server (L33T_VARIANTS_MAX): the same number gives the same scores. */
const L33T_VARIANTS_MAX = 10;

export interface PasswordStrength {
  /** 0 (very easy to guess) to 4, zxcvbn's scale. */
  score: number;
  warning: string | null;
  suggestions: string[];
}

export type Estimator = (password: string) => PasswordStrength;

let loading: Promise<Estimator> | undefined;

/** The estimator, loaded once; a failed load (offline) is tried again on the next call. */
export function loadEstimator(): Promise<Estimator> {
  if (loading !== undefined) return loading;
  const started = buildEstimator();
  loading = started;
  started.catch(() => {
    if (loading === started) loading = undefined;
  });
  return started;
}

async function buildEstimator(): Promise<Estimator> {
  const [core, common, en] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]);
  const factory = new core.ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
    maxLength: ESTIMATE_LENGTH_MAX,
    l33tMaxSubstitutions: L33T_VARIANTS_MAX,
  });
  return (password) => {
    // The server does not count spaces around a password either: they do not make a weak one strong.
    const { score, feedback } = factory.check(password.trim());
    return { score, warning: feedback.warning, suggestions: feedback.suggestions };
  };
}

const SCORE_WORDS = [
  'Very easy to guess',
  'Easy to guess',
  'Still too easy to guess',
  'Hard to guess',
  'Very hard to guess',
];

/** Pure: what the meter says — its verdict, and zxcvbn's warning or first suggestion for a weak one. */
export function strengthWords(strength: PasswordStrength): { label: string; advice: string | null } {
  const label = SCORE_WORDS[Math.min(Math.max(strength.score, 0), 4)] ?? SCORE_WORDS[0]!;
  if (strength.score >= PASSWORD_SCORE_MIN) return { label, advice: null };
  return { label, advice: strength.warning ?? strength.suggestions[0] ?? null };
}

/** Pure: why a new password would be refused for its strength (null: strong enough, or not estimated yet). */
export function weakPasswordError(strength: PasswordStrength | null): string | null {
  if (strength === null || strength.score >= PASSWORD_SCORE_MIN) return null;
  const advice = [strength.warning, ...strength.suggestions].filter((line) => line !== null).join(' ');
  return `Too easy to guess.${advice === '' ? '' : ` ${advice}`}`;
}
