import { RTL_TEXT } from './rtl.ts';

// A right-to-left textarea (`dir="rtl"`) holding Arabic and Hebrew sentences and English AI ones.
const field = document.querySelector<HTMLTextAreaElement>('#field')!;
field.value = RTL_TEXT;
Object.assign(window, { editorText: () => field.value });
