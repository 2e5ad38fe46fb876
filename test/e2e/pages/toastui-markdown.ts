import { mountToastUi } from './toastui-editor.ts';

mountToastUi('markdown');
