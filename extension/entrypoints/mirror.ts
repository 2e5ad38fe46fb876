import { FieldHighlighter } from '../lib/content/field-highlighter.ts';
import { provide } from '../lib/content/on-demand.ts';

/** The highlighter of textareas and inputs, imported by the content script when a field is checked (on-demand.ts). */
export default defineUnlistedScript(() => provide('mirror', FieldHighlighter));
