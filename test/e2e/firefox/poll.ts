export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds or `ms` pass; the value last read. */
export async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  let value = await read();
  for (const until = Date.now() + ms; !done(value) && Date.now() < until; await sleep(100)) value = await read();
  return value;
}
