// Human text: the labels, names, descriptions, memos and reasons people and agents write for people (and models)
// to read — in the dashboard, in alert emails, in tool results. It is one line of visible text, so what is shown is
// what was written. Refused, wherever such text enters (http/schemas.ts humanText):
//  - control characters (Cc): CR and LF split an email header or a log line; NUL, ESC, the C1 controls;
//  - format characters (Cf): the bidi overrides, embeddings, isolates and marks (U+202E turns "0xab…12 (savings)"
//    into a reversed, disguised address), zero-width spaces that make two labels look alike, the invisible tag
//    characters that smuggle text past a person to a model, the byte-order mark;
//  - line and paragraph separators (Zl, Zp): line breaks by another name;
//  - unpaired surrogates (Cs): not Unicode at all.
// Kept, because real text needs them: U+200D ZERO WIDTH JOINER (emoji sequences such as 👩‍💻 and 🏳️‍🌈, and Indic
// scripts) and U+200C ZERO WIDTH NON-JOINER (Persian and other scripts' spelling). Variation selectors (U+FE0F in
// ❤️) are marks, not format characters, and are allowed like every other visible character. The emoji flags of
// England, Scotland and Wales are spelled with tag characters: they are refused with the rest.

/** The two format characters human text keeps: zero width non-joiner and joiner. */
export const JOINERS = '\u200c\u200d';

const HIDDEN_SOURCE = '(?![\\u200c\\u200d])[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}]';
const HIDDEN = new RegExp(HIDDEN_SOURCE, 'u');
const HIDDEN_RUNS = new RegExp(`(?:${HIDDEN_SOURCE})+`, 'gu');
/** Something to see: a character that is not whitespace (what trim removes), not hidden and not a joiner. */
const VISIBLE = new RegExp(`(?!${HIDDEN_SOURCE})[^\\s${JOINERS}]`, 'u');

/** Whether one character (a code point, or a lone surrogate) is refused in human text. */
export function isHiddenCharacter(char: string): boolean {
  return HIDDEN.test(char);
}

/** The first character human text may not hold, named as "U+202E", or null when there is none. */
export function hiddenCharacterIn(text: string): string | null {
  const match = HIDDEN.exec(text);
  if (match === null) return null;
  const codePoint = match[0].codePointAt(0) ?? 0;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Whether the text shows anything: not empty, not only whitespace, joiners or refused characters. */
export function hasVisibleCharacter(text: string): boolean {
  return VISIBLE.test(text);
}

/**
 * The text with each run of refused characters replaced by one space: for text that reaches a reader from
 * before the rule (labels stored earlier, shown in an email's subject).
 */
export function withoutHiddenCharacters(text: string): string {
  return text.replace(HIDDEN_RUNS, ' ');
}

/** Why human text is refused (the field's name comes before it), or null. */
export function humanTextProblem(text: string): string | null {
  const found = hiddenCharacterIn(text);
  if (found === null) return null;
  return (
    `must be one line of plain text: control, line-break, bidi and invisible format characters are refused ` +
    `(it holds ${found})`
  );
}
