export * from './products.ts';
export * from './requests.ts';
export * from './responses.ts';
export * from './errors.ts';
