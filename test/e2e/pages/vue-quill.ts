import { createApp, defineComponent, h, ref } from 'vue';
import { QuillEditor } from '@vueup/vue-quill';
import type Quill from 'quill';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// @vueup/vue-quill (Quill 2 as a Vue 3 component, with its own Quill 2.0.2) as Vue apps use it:
// `v-model:content` with `contentType="html"`, the HTML in a ref the app saves; the component
// writes the ref back into Quill (`root.innerHTML`) when it differs from what it last emitted. A
// clock re-renders every 200 ms.
const html = ref(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
let quill: Quill | undefined;
let changes = 0;

const App = defineComponent({
  setup() {
    const tick = ref(0);
    setInterval(() => tick.value++, 200);
    return () =>
      h('div', { 'data-tick': tick.value }, [
        h(QuillEditor, {
          theme: 'snow',
          contentType: 'html',
          content: html.value,
          'onUpdate:content': (value: string) => {
            changes++;
            html.value = value;
          },
          onReady: (instance: Quill) => {
            quill = instance;
            // The document loaded is where the writer's undo history starts, as an app that opens a saved document makes it.
            setTimeout(() => instance.history.clear(), 0);
          },
        }),
      ]);
  },
});
createApp(App).mount('#app');

/** The HTML as text, one line per paragraph each ending in a newline, as Quill's `getText()` writes it. */
function textOfHtml(value: string): string {
  const body = new DOMParser().parseFromString(value, 'text/html').body;
  return [...body.children].map((block) => `${block.textContent}\n`).join('');
}
Object.assign(window, {
  editorText: () => textOfHtml(html.value),
  editorHtml: () => html.value,
  editorChanges: () => changes,
  // The editor's own serialization and text (its model), beside the app's ref.
  editorSerialized: () => quill?.root.innerHTML ?? '',
  editorModelText: () => quill?.getText() ?? '',
});
