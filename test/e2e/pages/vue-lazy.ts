import { createApp, onMounted, ref } from 'vue/dist/vue.esm-bundler.js';
import { PAGE_TEXT } from './text.ts';

// A Vue 3 textarea bound with `v-model.lazy`: Vue sets the ref on the element's `change` (when the
// writer leaves the field), not on each `input`, and writes the ref back on every render (a clock
// re-renders it every 200 ms). The page's value is the ref.
const draft = ref(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`);
createApp({
  setup() {
    const tick = ref(0);
    onMounted(() => setInterval(() => tick.value++, 200));
    return { draft, tick };
  },
  template: `<form @submit.prevent>
    <textarea id="field" v-model.lazy="draft" :data-tick="tick" rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px; display: block;"></textarea>
    <input id="subject" type="text" value="A subject, written by me.">
  </form>`,
}).mount('#app');
Object.assign(window, { editorText: () => draft.value });
