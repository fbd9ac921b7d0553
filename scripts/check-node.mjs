#!/usr/bin/env node
// The README's two commands run this first: on a Node.js older than the project needs it says what to do,
// instead of failing later with a confusing import or syntax error. Plain JavaScript any Node can parse.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `This project needs Node.js 22.18 or newer (24 LTS recommended); this is ${process.version}.\n` +
      'Install Node 24 (https://nodejs.org, or nvm install 24), or without a system install:\n' +
      '  npm install --prefix "$HOME/.cache/node24" node@24 && export PATH="$HOME/.cache/node24/node_modules/.bin:$PATH"\n' +
      'then run the command again.\n',
  );
  process.exit(1);
}
