// The order files run in: the longest first (by the durations of an earlier run), so that the run does not end
// with one long file on one worker while the others sit idle. A file with no duration (a new one) counts as
// an average file. Ties keep the files' own (alphabetical) order.
const UNKNOWN_FILE_S = 10;

/** @param {string[]} files @param {Record<string, number>} durationsS */
export function longestFirst(files, durationsS) {
  const weightS = (file) => durationsS[file] ?? UNKNOWN_FILE_S;
  return files
    .map((file, index) => ({ file, index }))
    .sort((a, b) => weightS(b.file) - weightS(a.file) || a.index - b.index)
    .map(({ file }) => file);
}
