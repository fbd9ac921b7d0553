/**
 * The handles open now that were not open at the start, as a multiset difference: two sockets at the start
 * and three now is one leaked socket. `ours` names handles the caller holds itself while it looks.
 */
export function leakedResources(before, now, ours = []) {
  const known = [...before, ...ours];
  const leaked = [];
  for (const name of now) {
    const i = known.indexOf(name);
    if (i === -1) leaked.push(name);
    else known.splice(i, 1);
  }
  return leaked;
}
