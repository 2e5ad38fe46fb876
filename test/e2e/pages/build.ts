import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Bundles the end-to-end test pages: each real editor library from npm on its own page. */
const here = path.dirname(fileURLToPath(import.meta.url));
export const PAGES_DIR = path.join(here, '..', '.pages');

const PAGES: Record<string, string> = {
  plain: `<h1>Plain fields</h1>
    <label>Draft <textarea id="field" rows="6" cols="70" style="font: 16px/1.5 serif; padding: 8px;"></textarea></label>
    <label>Password <input id="password" type="password" value="hunter2 is my password"></label>
    <label>Read-only <input id="readonly" type="text" readonly value="Moreover, it is important to note this."></label>
    <div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px; margin-top: 12px;"></div>
    <div id="scroller" style="height: 160px; overflow: auto; margin-top: 12px; border: 1px solid #888;">
      <div style="height: 200px"></div>
      <textarea id="inner" aria-label="A draft in a scrolling box" rows="4" cols="60" style="font: 15px/1.4 monospace;"></textarea>
      <div style="height: 400px"></div>
    </div>`,
  tiptap: '<h1>Tiptap</h1><div id="editor"></div>',
  codemirror: '<h1>CodeMirror 6</h1><div id="editor"></div>',
  quill: '<h1>Quill</h1><div id="editor"></div>',
  lexical: '<h1>Lexical</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  framed: '<h1>An editor in an iframe</h1><input id="title" type="text" value="A title, written by me."><iframe id="frame" src="./frame.html" style="width: 100%; height: 260px;"></iframe>',
  frame: '<div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  slate: '<h1>Slate</h1><div id="app"></div>',
  ckeditor: '<h1>CKEditor 5</h1><div id="editor"></div>',
  tinymce: '<h1>TinyMCE (classic, iframe)</h1><textarea id="editor"></textarea>',
  hugerte: '<h1>HugeRTE (classic, iframe)</h1><textarea id="editor"></textarea>',
  stubborn: '<h1>An editor that ignores synthetic edits</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  meddler: '<h1>An editor that rewrites an edit after it went in</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  pasteonly: '<h1>An editor that takes text only from paste</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  shadow: '<h1>Editors in shadow roots</h1><x-editor id="open"></x-editor><x-editor id="closed"></x-editor>',
  unreachable: '<h1>A frame without the extension</h1>',
  trix: '<h1>Trix</h1><trix-editor id="editor"></trix-editor>',
  ace: '<h1>Ace</h1><div id="editor" style="height: 240px;"></div>',
  draft: '<h1>Draft.js</h1><div id="app"></div>',
  editorjs: '<h1>Editor.js</h1><div id="editor" style="border: 1px solid #888;"></div>',
  easymde: '<h1>EasyMDE (CodeMirror 5)</h1><link rel="stylesheet" href="./easymde.min.css"><textarea id="editor"></textarea>',
  jodit: '<h1>Jodit</h1><link rel="stylesheet" href="./jodit.min.css"><textarea id="editor"></textarea>',
  summernote: '<h1>Summernote (lite)</h1><link rel="stylesheet" href="./summernote-lite.min.css"><div id="editor"></div>',
  medium: '<h1>medium-editor</h1><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  gutenberg: '<h1>WordPress block editor</h1><div id="app" style="border: 1px solid #888; padding: 8px;"></div>',
  squire: '<h1>Squire</h1><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  quill1: '<h1>Quill 1</h1><div id="editor"></div>',
  toastui: '<h1>TOAST UI Editor (WYSIWYG)</h1><link rel="stylesheet" href="./toastui-editor.css"><div id="editor"></div>',
  'toastui-markdown': '<h1>TOAST UI Editor (Markdown)</h1><link rel="stylesheet" href="./toastui-editor.css"><div id="editor"></div>',
  blocknote: '<h1>BlockNote</h1><link rel="stylesheet" href="./blocknote.css"><div class="bn-container" style="border: 1px solid #888;"><div id="editor"></div></div>',
  ckeditor4: '<h1>CKEditor 4 (classic, iframe)</h1><script src="./ckeditor4/ckeditor.js"></script><textarea id="editor"></textarea>',
  'lexical-rich': '<h1>Lexical (rich text)</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  prosemirror: '<h1>ProseMirror</h1><link rel="stylesheet" href="./prosemirror.css"><link rel="stylesheet" href="./prosemirror-menu.css"><link rel="stylesheet" href="./prosemirror-example-setup.css"><div id="editor" style="border: 1px solid #888;"></div>',
  suneditor: '<h1>SunEditor</h1><link rel="stylesheet" href="./suneditor.min.css"><div id="editor"></div>',
  trumbowyg: '<h1>Trumbowyg</h1><link rel="stylesheet" href="./trumbowyg.min.css"><textarea id="editor"></textarea>',
  pell: '<h1>Pell</h1><link rel="stylesheet" href="./pell.min.css"><div id="editor" style="border: 1px solid #888;"></div>',
  wangeditor: '<h1>wangEditor</h1><link rel="stylesheet" href="./wangeditor.css"><div id="editor" style="border: 1px solid #888; height: 320px;"></div>',
  roosterjs: '<h1>RoosterJS</h1><div id="editor" style="border: 1px solid #888; padding: 8px; min-height: 120px;"></div>',
  plate: '<h1>Plate</h1><div id="app"></div>',
  mobiledoc: '<h1>Mobiledoc-kit</h1><link rel="stylesheet" href="./mobiledoc.css"><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  collab: '<h1>ProseMirror with Yjs (a co-author typing)</h1><link rel="stylesheet" href="./prosemirror.css"><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  'collab-codemirror': '<h1>CodeMirror 6 with Yjs (a co-author typing)</h1><div id="editor" style="border: 1px solid #888;"></div>',
  'collab-quill': '<h1>Quill with Yjs (a co-author typing)</h1><div id="editor"></div>',
  'collab-lexical': '<h1>Lexical with Yjs (a co-author typing)</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  milkdown: '<h1>Milkdown</h1><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  article: '',
  'react-fields': '<h1>React controlled fields</h1><div id="app"></div>',
  'vue-fields': '<h1>Vue 3 fields (v-model)</h1><div id="app"></div>',
  'svelte-fields': '<h1>Svelte 5 field (bind:value)</h1><div id="app"></div>',
  'preact-signals': '<h1>Preact field controlled by a signal</h1><div id="app"></div>',
  sceditor: '<h1>SCEditor</h1><link rel="stylesheet" href="./sceditor.min.css"><form action="javascript:void 0"><textarea id="editor" style="width: 100%;"></textarea></form>',
  wysihtml: '<h1>wysihtml</h1><script src="./wysihtml/wysihtml.js"></script><script src="./wysihtml/advanced_and_extended.js"></script><form action="javascript:void 0"><textarea id="editor" style="width: 100%; height: 240px; border: 1px solid #888;"></textarea></form>',
  simditor: '<h1>Simditor</h1><link rel="stylesheet" href="./simditor.css"><textarea id="editor"></textarea>',
  'react-contenteditable': '<h1>react-contenteditable</h1><div id="app"></div>',
  'quill-table': '<h1>Quill 2 with a table</h1><link rel="stylesheet" href="./quill.snow.css"><div id="editor"></div>',
  contenttools: '<h1>ContentTools</h1><link rel="stylesheet" href="./content-tools.min.css"><script src="./content-tools.js"></script><div data-editable data-name="main" style="border: 1px solid #888; padding: 8px;"></div>',
  'lit-field': '<h1>A Lit component with a textarea in its shadow root</h1><draft-field></draft-field>',
  'quill-shadow': '<h1>Quill 2 in a shadow root</h1><div id="host"></div>',
  remirror: '<h1>Remirror</h1><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  yoopta: '<h1>Yoopta-Editor</h1><div id="app"></div>',
  'svelte-rich': '<h1>Svelte 5 contenteditable (bind:innerHTML)</h1><div id="app"></div>',
  'solid-field': '<h1>SolidJS textarea controlled by a signal</h1><div id="app"></div>',
  froala: '<h1>Froala Editor</h1><link rel="stylesheet" href="./froala_editor.pkgd.min.css"><div id="editor"></div>',
  'angular-field': '<h1>Angular textarea with [(ngModel)]</h1><draft-form></draft-form>',
  'angular-rich': '<h1>Angular contenteditable with a ControlValueAccessor</h1><draft-form></draft-form>',
  'ckeditor-multiroot': '<h1>CKEditor 5 (multi-root)</h1><div id="title" style="border: 1px solid #888;"></div><div id="body" style="border: 1px solid #888; margin-top: 12px;"></div>',
  'vue-lazy': '<h1>Vue 3 textarea with v-model.lazy</h1><div id="app"></div>',
  'jodit-iframe': '<h1>Jodit (iframe mode)</h1><link rel="stylesheet" href="./jodit.min.css"><textarea id="editor"></textarea>',
  'froala-iframe': '<h1>Froala Editor (iframe mode)</h1><link rel="stylesheet" href="./froala_editor.pkgd.min.css"><div id="editor"></div>',
  'suneditor-iframe': '<h1>SunEditor (iframe mode)</h1><link rel="stylesheet" href="./suneditor.min.css"><div id="editor"></div>',
  'tinymce-inline': '<h1>TinyMCE (inline)</h1><div id="editor" style="border: 1px solid #888; padding: 8px;"></div>',
  'ckeditor4-inline': '<h1>CKEditor 4 (inline)</h1><script src="./ckeditor4/ckeditor.js"></script><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  'plaintext-only': '<h1>A plaintext-only contenteditable</h1><div id="editor" contenteditable="plaintext-only" style="border: 1px solid #888; padding: 8px; white-space: pre-wrap;"></div>',
  'rtl-field': '<h1>A right-to-left textarea</h1><textarea id="field" dir="rtl" rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px;"></textarea>',
  'rtl-editor': '<h1>A right-to-left contenteditable</h1><div id="editor" dir="rtl" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  'react-quill-new': '<h1>react-quill-new (Quill 2 in React, controlled)</h1><link rel="stylesheet" href="./quill.snow.css"><div id="app"></div>',
  'react-md-editor': '<h1>@uiw/react-md-editor (controlled)</h1><link rel="stylesheet" href="./react-md-editor.css"><div id="app"></div>',
  mdxeditor: '<h1>MDXEditor</h1><link rel="stylesheet" href="./mdxeditor.css"><div id="app" style="border: 1px solid #888;"></div>',
  vditor: '<h1>Vditor</h1><link rel="stylesheet" href="./vditor/dist/index.css"><div id="editor"></div>',
  'tinymce-react': '<h1>TinyMCE React component (controlled)</h1><div id="app"></div>',
  'react-simplemde': '<h1>react-simplemde-editor (EasyMDE in React, controlled)</h1><link rel="stylesheet" href="./easymde.min.css"><div id="app"></div>',
  novel: '<h1>Novel (Tiptap 2 in React)</h1><div id="app" style="border: 1px solid #888; padding: 8px;"></div>',
  'ngx-quill': '<h1>ngx-quill (Quill 2 in Angular, [(ngModel)])</h1><link rel="stylesheet" href="./quill.snow.css"><draft-form></draft-form>',
  'tiptap-react': '<h1>Tiptap 3 in React (controlled)</h1><div id="app" style="border: 1px solid #888; padding: 8px;"></div>',
  'vue-quill': '<h1>@vueup/vue-quill (Quill 2 in Vue 3, v-model:content)</h1><link rel="stylesheet" href="./quill.snow.css"><div id="app"></div>',
  crepe: '<h1>Milkdown Crepe</h1><link rel="stylesheet" href="./crepe/common/style.css"><link rel="stylesheet" href="./crepe/frame/style.css"><div id="editor" style="border: 1px solid #888;"></div>',
  'lexical-table': '<h1>Lexical with a table</h1><div id="editor" contenteditable="true" style="border: 1px solid #888; padding: 8px;"></div>',
  'blocknote-react': '<h1>BlockNote with its React UI (Mantine)</h1><link rel="stylesheet" href="./blocknote.css"><link rel="stylesheet" href="./blocknote-mantine/style.css"><div id="app"></div>',
  'tiptap-vue': '<h1>Tiptap 3 in Vue 3 (v-model)</h1><div id="app" style="border: 1px solid #888; padding: 8px;"></div>',
  'ngx-editor': '<h1>ngx-editor (Angular, [(ngModel)])</h1><draft-form></draft-form>',
  'lexical-react': '<h1>Lexical through @lexical/react</h1><div id="app"></div>',
  'ckeditor-react': '<h1>CKEditor 5 React component (controlled)</h1><div id="app"></div>',
  dark: '<h1>A dark page</h1><div id="editor" contenteditable="true" style="border: 1px solid #555; padding: 8px;"></div>',
};

/** Monaco's pages, one script (see pages/monaco.ts). */
const MONACO_PAGES = ['monaco', 'monaco-textarea', 'monaco-private', 'monaco-private-textarea', 'monaco-readonly'];

/**
 * Simditor 2.3.28 on npm declares simple-module ^3 but calls its 2.x API (`connect`): its own
 * import of it gets 2.0.6 (`simple-module-v2`), as the bundles sites load have.
 */
const simditorModule: Plugin = {
  name: 'simditor-simple-module',
  setup(build) {
    build.onResolve({ filter: /^simple-module$/ }, (args) =>
      /[\\/]simditor[\\/]/.test(args.importer) ? { path: createRequire(import.meta.url).resolve('simple-module-v2') } : undefined,
    );
  },
};

/**
 * MDXEditor pins Lexical 0.48 while the other pages use 0.52: npm nests its copies under
 * `@mdxeditor/editor` and under the 0.48 `@lexical/*` packages it hoists, so a plain bundle
 * holds two Lexicals and the editor never mounts. Every Lexical import made from MDXEditor's
 * side resolves from MDXEditor's own folder, as a project with only MDXEditor would have it.
 */
const mdxeditorLexical: Plugin = {
  name: 'mdxeditor-lexical',
  setup(build) {
    const mdxeditorDir = path.dirname(createRequire(import.meta.url).resolve('@mdxeditor/editor/package.json'));
    const versions = new Map<string, string>();
    const versionOf = (packageDir: string) => {
      if (!versions.has(packageDir)) versions.set(packageDir, JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version);
      return versions.get(packageDir)!;
    };
    const onMdxeditorSide = (importer: string) => {
      if (importer.includes(`${path.sep}@mdxeditor${path.sep}`)) return true;
      const lexicalPackage = /^(.*[\\/]node_modules[\\/](?:@lexical[\\/][^\\/]+|lexical))[\\/]/.exec(importer)?.[1];
      return lexicalPackage !== undefined && versionOf(lexicalPackage).startsWith('0.48.');
    };
    build.onResolve({ filter: /^(lexical|@lexical\/)/ }, async (args) => {
      if (args.pluginData === 'mdxeditor-lexical' || !onMdxeditorSide(args.importer)) return undefined;
      return build.resolve(args.path, { resolveDir: mdxeditorDir, kind: args.kind, pluginData: 'mdxeditor-lexical' });
    });
  },
};

/** Svelte components (`.svelte`) compiled by Svelte's own compiler, as its bundler plugins do. */
const svelteComponents: Plugin = {
  name: 'svelte',
  setup(build) {
    build.onLoad({ filter: /\.svelte$/ }, async (args) => {
      const { compile } = await import('svelte/compiler');
      const { js } = compile(readFileSync(args.path, 'utf8'), { filename: args.path, generate: 'client' });
      return { contents: js.code, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

function writePage(name: string, body: string, script: string, bodyAttributes = ''): void {
  writeFileSync(
    path.join(PAGES_DIR, `${name}.html`),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body style="font: 16px system-ui; max-width: 760px; margin: 24px auto;"${bodyAttributes}>${body}<script type="module" src="./${script}.js"></script></body></html>`,
  );
}

export async function buildPages(): Promise<void> {
  mkdirSync(PAGES_DIR, { recursive: true });
  await build({
    entryPoints: Object.keys(PAGES).map((name) => path.join(here, `${name}.ts`)),
    outdir: PAGES_DIR,
    bundle: true,
    format: 'esm',
    minify: true,
    logLevel: 'warning',
    loader: { '.css': 'empty' },
    // Draft.js (through fbjs) still reads Node's `global`.
    // Vue's bundler build (its template compiler included) reads its feature flags from the bundler.
    define: { global: 'globalThis', __VUE_OPTIONS_API__: 'true', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    plugins: [simditorModule, svelteComponents, mdxeditorLexical],
  });
  // TinyMCE self-hosted: its skin and content CSS from the npm package.
  const tinymce = path.dirname(createRequire(import.meta.url).resolve('tinymce/package.json'));
  cpSync(path.join(tinymce, 'skins'), path.join(PAGES_DIR, 'tinymce', 'skins'), { recursive: true });
  const hugerte = path.dirname(createRequire(import.meta.url).resolve('hugerte/package.json'));
  cpSync(path.join(hugerte, 'skins'), path.join(PAGES_DIR, 'hugerte', 'skins'), { recursive: true });
  // Editors whose layout needs their own style sheet (esbuild drops imported CSS above).
  const resolve = createRequire(import.meta.url).resolve;
  cpSync(resolve('easymde/dist/easymde.min.css'), path.join(PAGES_DIR, 'easymde.min.css'));
  cpSync(path.join(path.dirname(resolve('jodit/package.json')), 'es2021', 'jodit.min.css'), path.join(PAGES_DIR, 'jodit.min.css'));
  cpSync(path.join(path.dirname(resolve('summernote/package.json')), 'dist', 'summernote-lite.min.css'), path.join(PAGES_DIR, 'summernote-lite.min.css'));
  cpSync(resolve('@toast-ui/editor/dist/toastui-editor.css'), path.join(PAGES_DIR, 'toastui-editor.css'));
  cpSync(resolve('prosemirror-view/style/prosemirror.css'), path.join(PAGES_DIR, 'prosemirror.css'));
  cpSync(resolve('prosemirror-menu/style/menu.css'), path.join(PAGES_DIR, 'prosemirror-menu.css'));
  cpSync(resolve('prosemirror-example-setup/style/style.css'), path.join(PAGES_DIR, 'prosemirror-example-setup.css'));
  // CKEditor 4 loads its plugins, skin and language files from its own folder.
  cpSync(path.dirname(resolve('ckeditor4/package.json')), path.join(PAGES_DIR, 'ckeditor4'), { recursive: true });
  cpSync(resolve('@blocknote/core/style.css'), path.join(PAGES_DIR, 'blocknote.css'));
  for (const sheet of ['style.css', 'mantineStyles.css', 'blocknoteStyles.css']) cpSync(path.join(path.dirname(resolve('@blocknote/mantine/style.css')), sheet), path.join(PAGES_DIR, 'blocknote-mantine', sheet));
  cpSync(path.join(path.dirname(resolve('suneditor/package.json')), 'dist', 'suneditor.min.css'), path.join(PAGES_DIR, 'suneditor.min.css'));
  cpSync(path.join(path.dirname(resolve('trumbowyg/package.json')), 'dist', 'ui', 'trumbowyg.min.css'), path.join(PAGES_DIR, 'trumbowyg.min.css'));
  cpSync(path.join(path.dirname(resolve('pell/package.json')), 'dist', 'pell.min.css'), path.join(PAGES_DIR, 'pell.min.css'));
  cpSync(resolve('@wangeditor/editor/dist/css/style.css'), path.join(PAGES_DIR, 'wangeditor.css'));
  cpSync(path.join(path.dirname(resolve('mobiledoc-kit')), 'mobiledoc.css'), path.join(PAGES_DIR, 'mobiledoc.css'));
  cpSync(path.join(path.dirname(resolve('sceditor/package.json')), 'minified', 'themes', 'default.min.css'), path.join(PAGES_DIR, 'sceditor.min.css'));
  cpSync(path.join(path.dirname(resolve('sceditor/package.json')), 'minified', 'themes', 'content', 'default.min.css'), path.join(PAGES_DIR, 'sceditor-content.css'));
  // wysihtml and ContentTools are loaded as their own scripts (globals), as pages load them.
  mkdirSync(path.join(PAGES_DIR, 'wysihtml'), { recursive: true });
  cpSync(path.join(path.dirname(resolve('wysihtml/package.json')), 'dist', 'wysihtml.js'), path.join(PAGES_DIR, 'wysihtml', 'wysihtml.js'));
  cpSync(path.join(path.dirname(resolve('wysihtml/package.json')), 'parser_rules', 'advanced_and_extended.js'), path.join(PAGES_DIR, 'wysihtml', 'advanced_and_extended.js'));
  cpSync(resolve('simditor/styles/simditor.css'), path.join(PAGES_DIR, 'simditor.css'));
  cpSync(resolve('froala-editor/css/froala_editor.pkgd.min.css'), path.join(PAGES_DIR, 'froala_editor.pkgd.min.css'));
  cpSync(resolve('quill/dist/quill.snow.css'), path.join(PAGES_DIR, 'quill.snow.css'));
  cpSync(resolve('@uiw/react-md-editor/markdown-editor.css'), path.join(PAGES_DIR, 'react-md-editor.css'));
  cpSync(resolve('@mdxeditor/editor/style.css'), path.join(PAGES_DIR, 'mdxeditor.css'));
  for (const theme of ['common', 'frame']) cpSync(path.join(path.dirname(resolve('@milkdown/crepe')), '..', 'theme', theme), path.join(PAGES_DIR, 'crepe', theme), { recursive: true });
  // Vditor loads Lute, its language and its icons from its `cdn` option's folder (pages/vditor.ts).
  const vditor = path.dirname(resolve('vditor/package.json'));
  for (const part of ['index.css', 'js/lute', 'js/i18n', 'js/icons', 'css']) cpSync(path.join(vditor, 'dist', part), path.join(PAGES_DIR, 'vditor', 'dist', part), { recursive: true });
  cpSync(path.join(path.dirname(resolve('ContentTools/package.json')), 'build', 'content-tools.js'), path.join(PAGES_DIR, 'content-tools.js'));
  cpSync(path.join(path.dirname(resolve('ContentTools/package.json')), 'build', 'content-tools.min.css'), path.join(PAGES_DIR, 'content-tools.min.css'));
  for (const [name, body] of Object.entries(PAGES)) writePage(name, body, name);
  // Monaco imports its style sheets and icon font from its modules: bundled with them, one
  // script for its three pages (pages/monaco.ts).
  await build({
    entryPoints: [path.join(here, 'monaco.ts')],
    outdir: PAGES_DIR,
    bundle: true,
    format: 'esm',
    minify: true,
    logLevel: 'warning',
    loader: { '.css': 'css', '.ttf': 'file' },
  });
  for (const name of MONACO_PAGES) {
    writePage(name, `<link rel="stylesheet" href="./monaco.css"><h1>Monaco (${name})</h1><div id="editor" style="height: 240px; border: 1px solid #888;"></div>`, 'monaco', ` data-monaco="${name}"`);
  }
}
