import { createApp, defineComponent, h, onBeforeUnmount, ref, watch, type PropType } from 'vue';
import { EditorContent, useEditor, type Editor } from '@tiptap/vue-3';
import StarterKit from '@tiptap/starter-kit';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// Tiptap 3 in Vue 3 (`@tiptap/vue-3`'s `useEditor` and `EditorContent`, StarterKit 3 with its
// link) behind `v-model`, as Tiptap's Vue guide writes the component: `onUpdate` emits
// `update:modelValue` with the HTML, and a watcher sets the content back (`setContent`) whenever
// the bound value differs from the editor's. The app's ref is what it saves; a clock re-renders
// every 200 ms.
const html = ref(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
let changes = 0;
let current: Editor | undefined;

const TiptapField = defineComponent({
  props: { modelValue: { type: String as PropType<string>, required: true } },
  emits: ['update:modelValue'],
  setup(props, { emit }) {
    const editor = useEditor({
      extensions: [StarterKit],
      content: props.modelValue,
      onUpdate: ({ editor }) => emit('update:modelValue', editor.getHTML()),
    });
    watch(
      () => props.modelValue,
      (value) => {
        if (!editor.value || editor.value.getHTML() === value) return;
        editor.value.commands.setContent(value, { emitUpdate: false });
      },
    );
    watch(editor, (instance) => (current = instance));
    onBeforeUnmount(() => editor.value?.destroy());
    return () => h(EditorContent, { editor: editor.value });
  },
});

const App = defineComponent({
  setup() {
    const tick = ref(0);
    setInterval(() => tick.value++, 200);
    return () =>
      h('div', { 'data-tick': tick.value }, [
        h(TiptapField, {
          modelValue: html.value,
          'onUpdate:modelValue': (value: string) => {
            changes++;
            html.value = value;
          },
        }),
      ]);
  },
});
createApp(App).mount('#app');

Object.assign(window, {
  editorText: () => blockLines(html.value),
  editorHtml: () => html.value,
  editorChanges: () => changes,
  // The editor's own serialization and text (its model), beside the app's ref.
  editorSerialized: () => current?.getHTML() ?? '',
  editorModelText: () => current?.getText() ?? '',
  // The app locks the document (read-only) and unlocks it, through Tiptap's API.
  refuseEdits: () => current?.setEditable(false),
  allowEdits: () => current?.setEditable(true),
});
