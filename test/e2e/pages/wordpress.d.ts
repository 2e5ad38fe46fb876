// @wordpress/block-editor ships no type declarations (WordPress keeps them in @types/wordpress__block-editor, behind its releases).
declare module '@wordpress/block-editor';
