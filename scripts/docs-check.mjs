#!/usr/bin/env node
// Checks the built documentation site (docs/.vitepress/dist, written by `vitepress build docs`): every internal
// link of every page leads to a page that exists and, when it names an anchor, to an element with that id.
// VitePress fails the build on a dead page link but not on a dead anchor; this is the rest. Exits 1 listing each
// broken link. `npm run docs:build` runs it last; test/docs-site.test.ts runs the build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SITE = join(ROOT, 'docs', '.vitepress', 'dist');

/** Every .html file under `dir`. */
function htmlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** The page file a site path names (clean URLs: `/agents/mcp` is agents/mcp.html, `/agents/` agents/index.html). */
function pageFile(sitePath) {
  const path = decodeURIComponent(sitePath);
  const candidates = path.endsWith('/')
    ? [join(SITE, path, 'index.html')]
    : [join(SITE, path), join(SITE, `${path}.html`), join(SITE, path, 'index.html')];
  return candidates.find((file) => existsSync(file) && !file.endsWith('/'));
}

/** The ids of a page's elements; the page's own content only (the theme's ids are in every page alike). */
function idsOf(html) {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => decodeEntities(match[1])));
}

function decodeEntities(text) {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** The internal links of a page: `href`s that are not another site, a mail address or the theme's own. */
function linksOf(html) {
  return [...html.matchAll(/<a\s[^>]*href="([^"]+)"/g)]
    .map((match) => decodeEntities(match[1]))
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

/** Every broken internal link of the built site: `{page, href, why}`. */
export function brokenLinks(site = SITE) {
  const pages = htmlFiles(site);
  const ids = new Map(pages.map((file) => [file, idsOf(readFileSync(file, 'utf8'))]));
  const broken = [];
  for (const file of pages) {
    const sitePath = `/${relative(site, file)}`;
    for (const href of linksOf(readFileSync(file, 'utf8'))) {
      const [pathPart, anchor] = href.split('#', 2);
      const target = pathPart === '' ? file : pageFile(new URL(pathPart, `http://site${sitePath}`).pathname);
      if (target === undefined) {
        broken.push({ page: sitePath, href, why: 'no such page' });
        continue;
      }
      if (anchor === undefined || anchor === '' || !target.endsWith('.html')) continue;
      const targetIds = ids.get(target) ?? idsOf(readFileSync(target, 'utf8'));
      if (!targetIds.has(decodeURIComponent(anchor)))
        broken.push({ page: sitePath, href, why: `no #${anchor} there` });
    }
  }
  return { pages: pages.length, broken };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(SITE)) {
    console.error(`${relative(ROOT, SITE)} does not exist: run vitepress build docs first`);
    process.exit(1);
  }
  const { pages, broken } = brokenLinks();
  for (const link of broken) console.error(`${link.page}: ${link.href} (${link.why})`);
  if (broken.length > 0) {
    console.error(`docs-check: ${broken.length} broken internal link(s) in ${pages} pages`);
    process.exit(1);
  }
  console.log(`docs-check: ${pages} pages, every internal link and anchor resolves`);
}
