// Download sizes of the built package (dist/): gzip at level 9 by zlib, as a server compresses
// a response (no file name in the header; plain `gzip -9` writes each file's name there).
//   node scripts/sizes.mjs          prints the table
//   node scripts/sizes.mjs --check  also fails if a page downloads more than the budget
//   node scripts/sizes.mjs --write  also rewrites docs/architecture.md's size table (between markers)
//   node scripts/sizes.mjs --release  fails unless dist/ is the release build (npm publish)
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

// What one page downloads, worker and wasm included (both are shared by all tabs and cached):
// at most 29,000 bytes gzip (zlib level 9), the project's budget (raised from 27,000 for the tab-hosted service; from 25,600 for one
// lock manager per origin and every realm of it).
const PAGE_BUDGET = 29_000;
const PAGES = {
  'ESM page (`index.js` or `auto.js`)': ['index.js', 'web-locks-worker.js', 'web_locks_bg.wasm'],
  'classic-script page (`web-locks.global.js`)': ['web-locks.global.js', 'web-locks-worker.js', 'web_locks_bg.wasm'],
};

const files = {};
for (const file of (await readdir('dist')).sort()) {
  const body = await readFile(`dist/${file}`);
  files[file] = { bytes: body.length, gzip: gzipSync(body, { level: 9 }).length };
}
const n = (x) => x.toLocaleString('en-US');
const rows = ['| file | bytes | gzip (zlib, level 9) |', '|--|--|--|'];
for (const [file, { bytes, gzip }] of Object.entries(files)) rows.push(`| \`dist/${file}\` | ${n(bytes)} | ${n(gzip)} |`);
const pages = Object.entries(PAGES).map(([page, parts]) => [page, parts.reduce((sum, f) => sum + files[f].gzip, 0)]);
for (const [page, gzip] of pages) rows.push(`| one ${page} downloads | | **${n(gzip)}** |`);
const table = rows.join('\n');
console.log(table);

if (process.argv.includes('--write')) {
  const doc = await readFile('docs/architecture.md', 'utf8');
  const marked = /(<!-- sizes:begin -->)[\s\S]*?(<!-- sizes:end -->)/;
  if (!marked.test(doc)) throw new Error('docs/architecture.md has no sizes markers');
  await writeFile('docs/architecture.md', doc.replace(marked, `$1\n${table}\n$2`));
}
// (The budget is the release build's, core and alloc rebuilt: scripts/build.sh says which
// route built dist/. A build on the precompiled libraries is larger, and said so.)
const route = await readFile('pkg/route', 'utf8').then((text) => text.trim(), () => 'build-std');
// (`--release`, before `npm publish`: only the release build may be published.)
if (process.argv.includes('--release') && route !== 'build-std' && !process.env.npm_config_dry_run) {
  console.error(`dist/ was built on the ${route} route: publish the release build (docs/contributing.md)`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  const over = route === 'build-std' ? pages.filter(([, gzip]) => gzip > PAGE_BUDGET) : [];
  for (const [page, gzip] of over) console.error(`size check: one ${page} downloads ${n(gzip)} bytes gzip, budget ${n(PAGE_BUDGET)}`);
  if (over.length) process.exit(1);
  console.log(
    route === 'build-std'
      ? `size check: every page within ${n(PAGE_BUDGET)} bytes gzip`
      : `size check: not checked, dist/ was built on the ${route} route (larger; the budget applies to the release build: docs/contributing.md)`,
  );
}
