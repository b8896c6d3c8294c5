// Builds the page into dist/ (or the directory given with --out): one script and one
// style sheet, named by the hash of their content, index.html naming them, and a gzip
// and a brotli form of each file. The output depends only on the sources and the locked
// packages, so CI can check that the committed dist/ is what this builds.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const here = path.dirname(new URL(import.meta.url).pathname);
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = path.resolve(outAt >= 0 ? args[outAt + 1] : path.join(here, 'dist'));

const script = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  write: false,
  legalComments: 'eof',
  logLevel: 'warning',
});
const css = [
  'node_modules/chessground/assets/chessground.base.css',
  'node_modules/chessground/assets/chessground.brown.css',
  'node_modules/chessground/assets/chessground.cburnett.css',
  'src/style.css',
]
  .map(f => fs.readFileSync(path.join(here, f), 'utf8'))
  .join('\n');
const styles = await esbuild.transform(css, { loader: 'css', minify: true, legalComments: 'eof' });

const hashed = (stem, ext, text) => {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { name: `${stem}-${hash}.${ext}`, text };
};
const app = hashed('app', 'js', script.outputFiles[0].text);
const style = hashed('app', 'css', styles.code);
const page = {
  name: 'index.html',
  text: fs
    .readFileSync(path.join(here, 'src/index.html'), 'utf8')
    .replace('%APP_JS%', `/assets/${app.name}`)
    .replace('%APP_CSS%', `/assets/${style.name}`),
};

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
for (const f of [page, app, style]) {
  const bytes = Buffer.from(f.text, 'utf8');
  fs.writeFileSync(path.join(out, f.name), bytes);
  fs.writeFileSync(path.join(out, `${f.name}.gz`), gzipSync(bytes, { level: 9 }));
  fs.writeFileSync(
    path.join(out, `${f.name}.br`),
    brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  );
  console.log(`${f.name}: ${bytes.length} bytes`);
}
