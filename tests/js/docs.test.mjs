// The README and docs/: the README stays short, every relative link and #anchor resolves,
// every repository path the pages name in backticks exists, and so does every test they name. Node built-ins only:
//   node --test tests/js/docs.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const MAX_README_LINES = 300;

const pages = [README, ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => join(DOCS, f))];
const rel = (file) => relative(ROOT, file);

// Lines outside fenced code blocks (``` or ~~~), with their line numbers; fenced lines are
// neither headings, links nor paths.
function prose(text) {
  const out = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && !line.slice(m[0].length).trim()) fence = null;
      return;
    }
    if (m) {
      fence = m[1];
      return;
    }
    out.push({ line, n: i + 1 });
  });
  return out;
}

const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;

// GitHub's heading anchors: the heading's text as rendered (inline markup dropped), lower-cased,
// every character but letters, digits, marks, connector punctuation (`_`), spaces and hyphens
// removed, spaces turned into hyphens; a repeated slug gets -1, -2, ...
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(CODE_SPAN, '$2'); // code spans: their content
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map();
function anchors(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const seen = new Map();
  const set = new Set();
  const add = (text) => {
    const base = slug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    set.add(count ? `${base}-${count}` : base);
  };
  const lines = prose(readFileSync(file, 'utf8'));
  lines.forEach(({ line }, i) => {
    const atx = /^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    if (atx) return add(atx[1] ?? '');
    // A setext heading: a paragraph line underlined with = or -.
    const next = lines[i + 1];
    if (next && next.n === lines[i].n + 1 && /^ {0,3}(=+|-+)\s*$/.test(next.line) && line.trim() &&
        !/^ {0,3}([-*+]\s|\d+[.)]\s|>|\||#)/.test(line)) add(line.trim());
  });
  anchorCache.set(file, set);
  return set;
}

// Every inline link, image and reference definition outside code: { target, n }.
function links(text) {
  const found = [];
  for (const { line, n } of prose(text)) {
    const bare = line.replace(CODE_SPAN, (m, ticks) => ticks + 'x'.repeat(m.length - 2 * ticks.length) + ticks);
    for (const m of bare.matchAll(/!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      found.push({ target: m[1], n });
    }
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(bare);
    if (def) found.push({ target: def[1], n });
  }
  return found;
}

// Every code span outside fenced blocks: { code, n }.
function codeSpans(text) {
  const found = [];
  for (const { line, n } of prose(text)) for (const m of line.matchAll(CODE_SPAN)) found.push({ code: m[2].trim(), n });
  return found;
}

test(`README.md has at most ${MAX_README_LINES} lines`, () => {
  const lines = readFileSync(README, 'utf8').replace(/\n$/, '').split('\n').length;
  assert.ok(lines <= MAX_README_LINES, `README.md has ${lines} lines`);
});

test('the slug rules are GitHub\'s', () => {
  assert.equal(slug('Contexts and lifecycle: no lock stuck, none doubly held'), 'contexts-and-lifecycle-no-lock-stuck-none-doubly-held');
  assert.equal(slug('Extensions (non-standard)'), 'extensions-non-standard');
  assert.equal(slug('1. An ES module'), '1-an-es-module');
  assert.equal(slug('`requestAll` and [links](x.md)'), 'requestall-and-links');
  assert.equal(slug('Behaviour: §4.5 — naïve_case'), 'behaviour-45--naïve_case');
});

for (const page of pages) {
  test(`${rel(page)}: every relative link and #anchor resolves`, () => {
    const broken = [];
    for (const { target, n } of links(readFileSync(page, 'utf8'))) {
      if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http(s), mailto, ...
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const file = path === '' ? page : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${rel(page)}:${n}: ${target}: no such file ${rel(file)}`);
        continue;
      }
      if (anchor === null || !file.endsWith('.md') || statSync(file).isDirectory()) continue;
      if (!anchors(file).has(anchor.toLowerCase())) {
        broken.push(`${rel(page)}:${n}: ${target}: no heading #${anchor} in ${rel(file)}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}

// Repository paths named in backticks: `tests/e2e/vite.test.mjs`, `src/service/election.rs`,
// `docs/protocol.md`, `tests/types/` — relative to the repository's root. Globs and
// placeholders (`tests/node/local-*.test.mjs`, `tests/e2e/<suite>`) are not paths.
const PATH = /^(?:src|js|tests|scripts|docs|types|www|bench)\/[\w.@/-]*(?:\.(?:d\.ts|ts|js|mjs|cjs|rs|md|json|toml|sh|html|css|wasm|txt|ya?ml|lock)|\/)$/;
for (const page of pages) {
  test(`${rel(page)}: every repository path in backticks exists`, () => {
    const missing = [];
    for (const { code, n } of codeSpans(readFileSync(page, 'utf8'))) {
      if (/[<>*?{}]/.test(code) || !PATH.test(code)) continue;
      if (!existsSync(join(ROOT, code))) missing.push(`${rel(page)}:${n}: \`${code}\` does not exist`);
    }
    assert.deepEqual(missing, []);
  });
}

// A test the pages name (`tests/e2e/faults.test.mjs`, "a fault inside the lock worker"): the
// quoted words are in that file (a test's or a group's name, or its start), whitespace aside.
const squash = (text) => text.replace(/\s+/g, ' ');
for (const page of pages) {
  test(`${rel(page)}: every test it names by its words is in that file`, () => {
    const wrong = [];
    const text = squash(readFileSync(page, 'utf8'));
    for (const [, file, words] of text.matchAll(/`((?:tests|bench)\/[^`]+\.(?:mjs|rs))`,? "([^"]+)"/g)) {
      const path = join(ROOT, file);
      if (!existsSync(path) || !squash(readFileSync(path, 'utf8')).includes(words)) wrong.push(`${rel(page)}: no "${words}" in ${file}`);
    }
    assert.deepEqual(wrong, []);
  });
}

// The error texts the docs quote are the code's own: each quoted fragment is in the page and,
// word for word, in the JS that makes the message.
const QUOTED_ERRORS = [
  ['docs/loading.md', '): Vite needs the plugin navigator-locks-polyfill/vite', 'js/client/connection.js'],
  ['docs/loading.md', 'web-locks worker could not load its wasm (', 'js/worker/worker-entry.js'],
  ['docs/loading.md', " (its CSP needs 'wasm-unsafe-eval')", 'js/worker/worker-entry.js'],
];
test('the error texts the docs quote are the ones the code makes', () => {
  const wrong = [];
  for (const [page, text, source] of QUOTED_ERRORS) {
    if (!readFileSync(join(ROOT, page), 'utf8').includes(text)) wrong.push(`${page} does not quote ${JSON.stringify(text)}`);
    if (!readFileSync(join(ROOT, source), 'utf8').includes(text)) wrong.push(`${source} does not make ${JSON.stringify(text)}`);
  }
  assert.deepEqual(wrong, []);
});
