import { createApp, defineComponent, h, onMounted, onUpdated, ref } from 'vue/dist/vue.esm-bundler.js';
import { PAGE_TEXT } from './text.ts';

// Form fields as Vue 3 apps write them: a `v-model` textarea (Vue's template compiler, as a
// single-file component compiles it: `vModelText`, which sets the ref on the element's `input`
// and writes the ref back into the element on every render), and a component wrapping a
// contenteditable that emits `update:modelValue` with its HTML on `input` and, on every render,
// writes the model's HTML back when the DOM's differs (so an edit Vue never heard of is rendered
// away). A clock re-renders both every 200 ms. The page's values are the refs.
const TEXT = `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`;
const HTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;

const RichText = defineComponent({
  props: { modelValue: { type: String, required: true }, tick: Number },
  emits: ['update:modelValue'],
  setup(props, { emit }) {
    const element = ref<HTMLElement>();
    const sync = () => {
      if (element.value && element.value.innerHTML !== props.modelValue) element.value.innerHTML = props.modelValue;
    };
    onMounted(sync);
    onUpdated(sync);
    return () =>
      h('div', {
        ref: element,
        id: 'rich',
        contenteditable: 'true',
        style: 'border: 1px solid #888; padding: 8px; margin-top: 12px;',
        'data-tick': props.tick,
        onInput: (event: Event) => emit('update:modelValue', (event.target as HTMLElement).innerHTML),
      });
  },
});

const state = { draft: ref(TEXT), rich: ref(HTML), richChanges: 0 };
const app = createApp({
  components: { RichText },
  setup() {
    const tick = ref(0);
    onMounted(() => setInterval(() => tick.value++, 200));
    const onRich = (html: string) => {
      state.richChanges++;
      state.rich.value = html;
    };
    return { draft: state.draft, rich: state.rich, tick, onRich };
  },
  template: `<form @submit.prevent>
    <textarea id="field" v-model="draft" :data-tick="tick" rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px; display: block;"></textarea>
    <RichText :model-value="rich" :tick="tick" @update:model-value="onRich" />
  </form>`,
});
app.mount('#app');

/** The rich field's text, one line per paragraph. */
const richText = () => {
  const element = document.createElement('div');
  element.innerHTML = state.rich.value.replace(/<\/(p|div)>\s*<(p|div)>/g, '</$1>\n<$2>');
  return (element.textContent ?? '').replace(/\u00a0/g, ' ');
};
Object.assign(window, { editorText: () => state.draft.value, richText, richHtml: () => state.rich.value });
