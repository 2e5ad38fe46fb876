import { PAGE_TEXT } from './text.ts';

/** Sentences of the writer's own in Arabic and Hebrew, around the English AI ones. */
export const ARABIC = 'كتبت هذه الفقرة بنفسي يوم الثلاثاء.';
export const HEBREW = 'כתבתי את הפסקה הזאת בעצמי ביום שלישי.';
/** The text of both right-to-left pages: an Arabic sentence before the English ones, a Hebrew paragraph after. */
export const RTL_TEXT = `${ARABIC} ${PAGE_TEXT}\n${HEBREW}`;
