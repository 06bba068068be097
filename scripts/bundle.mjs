// Assembles dist/ from pkg/ (wasm-bindgen's output, scripts/build.sh) and js/, with esbuild. Every shipped script is
// compiled for the oldest browsers the README claims, so syntax they lack fails the build.
import { build, transform } from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { minify } from 'terser';

export const TARGETS = ['chrome69', 'edge79', 'firefox91', 'safari15'];
// Properties whose names end in `_` (the connection's own fields and methods in
// js/client/connection.js and js/client/local.js, the request handlers' internal hooks) are
// renamed: each bundle has its own copy of them, and none is a protocol field, an option or a
// name a page can see; renamed, they compress better. (esbuild's convention: a name a page
// or the lock worker sees must not end in `_`.)
// The internals the extension entries reach through the main one (js/entries/internals.js, read
// for their names) are renamed too, the same way in every bundle (a fixed map), since they
// cross from one bundle to another.
const shared = Object.keys((await import('../js/entries/internals.js')).__internals);
const common = {
  bundle: true,
  minify: true,
  target: TARGETS,
  legalComments: 'none',
  logLevel: 'warning',
  mangleProps: new RegExp(`_$|^(${shared.join('|')})$`),
  reserveProps: /^__.*__$/, // (the platform's own: __lookupGetter__)
  mangleCache: Object.fromEntries(shared.map((name, i) => [name, `$${i}`])),
};

await rm('dist', { recursive: true, force: true });
await mkdir('dist');

// wasm-bindgen's classic glue, with the wasm's import and export names as wasm-opt minified
// them (scripts/build.sh: pkg/names.json maps each old name to its new one). The old names
// carry 16-digit hashes that no compressor shrinks; each occurs in both the wasm and the glue.
// The import module's name is minified too (the map omits it: it is read from the wasm).
// Every import must be found (the glue provides it); an export the glue never calls is fine.
function minifiedNames(glue, { imports, exports }, wasm) {
  const only = (names) => {
    if (names.size !== 1) throw new Error(`bundle: expected one wasm import module, found ${[...names]}`);
    return [...names][0];
  };
  const rename = (from, to, required) => {
    const uses = new RegExp(`(?<![\\w$.])${from.replace(/[.$]/g, '\\$&')}(?![\\w$])`, 'g');
    if (required && !uses.test(glue)) throw new Error(`bundle: the glue does not provide ${from}`);
    glue = glue.replace(uses, to);
  };
  const module = only(new Set(WebAssembly.Module.imports(new WebAssembly.Module(wasm)).map((i) => i.module)));
  rename(JSON.stringify(only(new Set(imports.map(([from]) => from)))), JSON.stringify(module), true);
  for (const [, from, to] of imports) rename(from, to, true);
  for (const [from, to] of exports) rename(`wasm.${from}`, `wasm.${to}`, false);
  return glue;
}
// wasm-bindgen's init, reduced to the one call the loaders make — `wasm_bindgen({
// module_or_path })` with a URL string (fetched and compiled while streaming; from its bytes
// where the server's MIME type defeats that, as wasm-bindgen's own init does) or with the
// bytes (Node reads them from disk) — without initSync, the deprecated call forms and the
// default path from document.currentScript. The build fails if the glue's shape changed.
// (Only the in-realm service passes bytes: `only()` leaves that branch out of the worker's.)
const FROM_BYTES = `
        if (typeof source !== 'string') {
            result = await WebAssembly.instantiate(source, imports);
        } else {`;
function slimInit(glue) {
  const scriptSrc = /\n    let script_src;\n    if \(typeof document !== 'undefined'[^]*?\n    }\n/;
  const from = '\n    async function __wbg_load(';
  const to = '\n    return Object.assign(__wbg_init, { initSync }, exports);\n';
  if (!scriptSrc.test(glue) || !glue.includes(from) || !glue.includes(to) || !glue.includes('function __wbg_finalize_init(')) {
    throw new Error('bundle: the wasm-bindgen glue changed shape: update slimInit()');
  }
  glue = glue.replace(scriptSrc, '\n');
  const init = `
    async function __wbg_init({ module_or_path: source }) {
        if (wasm !== undefined) return wasm;
        const imports = __wbg_get_imports();
        let result;${FROM_BYTES}
            const response = await fetch(source);
            if (!response.ok) throw new Error('failed to fetch ' + source + ': ' + response.status);
            try {
                result = await WebAssembly.instantiateStreaming(response.clone(), imports);
            } catch (e) {
                result = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
            }
        }
        return __wbg_finalize_init(result.instance, result.module);
    }
    return Object.assign(__wbg_init, exports);
`;
  return glue.slice(0, glue.indexOf(from)) + init + glue.slice(glue.indexOf(to) + to.length);
}

const glue = minifiedNames(
  slimInit(await readFile('pkg/web_locks.js', 'utf8')),
  JSON.parse(await readFile('pkg/names.json', 'utf8')),
  await readFile('pkg/web_locks_bg.wasm'),
);

// The glue with only the wrappers of the wasm's exports in `used`: those its loader calls
// (the in-realm service makes no claim and has no tab or other workers to hear), and the
// init's bytes branch only if `used` has 'bytes'. The build fails if a wrapper's shape
// changed.
function only(used, glue) {
  if (!used.includes('bytes')) glue = glue.replace(FROM_BYTES, '\n        {');
  for (const name of ['serve', 'lifeline_open', 'claimed', 'hidden', 'signal']) {
    if (used.includes(name)) continue;
    const wrapper = new RegExp(`\\n    function ${name}\\([^]*?\\n    }\\n    exports\\.${name} = ${name};\\n`);
    if (!wrapper.test(glue)) throw new Error(`bundle: the glue's ${name}() changed shape: update only()`);
    glue = glue.replace(wrapper, '\n');
  }
  return glue;
}

// The worker: wasm-bindgen's classic glue + our entry (bundled: it shares js/shared/election.js with
// the pages), one classic script.
const entry = await build({ entryPoints: ['js/worker/worker-entry.js'], bundle: true, format: 'iife', write: false, logLevel: 'warning' });
const worker = await transform(only(['serve', 'lifeline_open', 'claimed', 'hidden', 'signal'], glue) + '\n' + entry.outputFiles[0].text, {
  minify: true,
  target: TARGETS,
  legalComments: 'none',
});
await writeFile('dist/web-locks-worker.js', worker.code);
await copyFile('pkg/web_locks_bg.wasm', 'dist/web_locks_bg.wasm');

// The in-realm service ({ local: true }): the same glue as an ES module, loaded on demand by
// the entries. Its tail is not minified, so that its bundler hints survive.
const glueModule = await transform(only(['serve', 'lifeline_open', 'bytes'], glue), { minify: true, target: TARGETS, legalComments: 'none' });
const service = await transform(await readFile('js/worker/local-service.js', 'utf8'), { format: 'esm', target: TARGETS });
await writeFile('dist/web-locks-service.js', glueModule.code + service.code);

// The entries that load the service do so by import(): it stays a file (a chunk) of its own.
const lazy = ['./web-locks-service.js'];
await build({ ...common, entryPoints: ['js/entries/index.js'], format: 'esm', outfile: 'dist/index.js', external: lazy });
// auto.js, local.js and scopes.js import ./index.js rather than a copy: one LockManager class
// per page. (scopes.js reaches the internals it shares through index.js: js/entries/internals.js.)
const viaIndex = {
  name: 'via-index',
  setup(build) {
    build.onResolve({ filter: /^(\.\/|\.\.\/entries\/)(index|internals)\.js$/ }, () => ({ path: './index.js', external: true }));
  },
};
for (const [entry, out] of [['entries/auto', 'auto'], ['entries/local-entry', 'local'], ['extensions/scopes', 'scopes']]) {
  await build({ ...common, entryPoints: [`js/${entry}.js`], format: 'esm', outfile: `dist/${out}.js`, plugins: [viaIndex] });
}
// The deadlock detector ('navigator-locks-polyfill/deadlocks') stands alone.
await build({ ...common, entryPoints: ['js/extensions/deadlocks.js'], format: 'esm', outfile: 'dist/deadlocks.js' });
await build({ ...common, entryPoints: ['js/entries/global.js'], format: 'iife', outfile: 'dist/web-locks.global.js' });
// The classic extras script: the extension's internals are web-locks.global.js's.
const viaGlobal = {
  name: 'via-global',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/entries\/internals\.js$/ }, (args) => ({ path: `${args.resolveDir}/../entries/global-internals.js` }));
  },
};
await build({ ...common, entryPoints: ['js/entries/global-extras.js'], format: 'iife', outfile: 'dist/web-locks-extras.global.js', plugins: [viaGlobal] });
// The bundler plugins run in Node (the bundler's config): plain ESM, no browser targets. The
// esbuild and Rollup ones read the worker and the .wasm next to them in dist/.
await build({
  ...common,
  entryPoints: ['js/plugins/vite.js', 'js/plugins/esbuild.js', 'js/plugins/rollup.js'],
  format: 'esm',
  platform: 'node',
  outdir: 'dist',
  target: 'node18',
  minify: false,
});

// A second minifier over every script the browser loads: terser's compressor, run three
// times, finds what esbuild's single pass leaves, statements left apart (`sequences`:
// joined by commas, they compress worse).
// Its output keeps to ES2018 (Chrome 69, the oldest target): it introduces no syntax the
// targets lack; what esbuild lowered stays lowered.
for (const file of ['index', 'auto', 'local', 'scopes', 'deadlocks', 'web-locks.global', 'web-locks-extras.global', 'web-locks-worker']) {
  const path = `dist/${file}.js`;
  const module = !file.includes('.global') && file !== 'web-locks-worker';
  // (The worker's script is a realm of its own: its top-level names, wasm-bindgen's
  // included, are no one else's and are minified too; and none of its functions is
  // constructed or has its prototype read, so function expressions may become arrows and
  // methods (`unsafe_arrows`, `unsafe_methods`).)
  const toplevel = file === 'web-locks-worker';
  const compress = { passes: 3, sequences: false, unsafe_arrows: toplevel, unsafe_methods: toplevel };
  const { code } = await minify(await readFile(path, 'utf8'), { module, toplevel, ecma: 2018, compress, mangle: true });
  await writeFile(path, code);
}

// A folder per module subpath (`auto/package.json`, ...), naming the file and declarations
// its `exports` entry does: for resolvers that read no `exports` (Parcel's by default). Made
// here from package.json, packed with dist/ (its `files`), and not kept in the repository.
const { exports } = JSON.parse(await readFile('package.json', 'utf8'));
for (const [subpath, target] of Object.entries(exports)) {
  if (subpath === '.' || typeof target !== 'object' || target.default.endsWith('.global.js')) continue;
  const folder = subpath.slice(2);
  await mkdir(folder, { recursive: true });
  const manifest = { main: `.${target.default}`, types: `.${target.types}` };
  await writeFile(`${folder}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
}
