import { closeSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { SOURCE_INDEX_VERSION, type Allocate, type SourceIndexData } from '@redline/shared/analysis';

/**
 * The offline source index on disk, so that a restart loads it instead of indexing the folder
 * again: a JSON header line (format, fingerprint of the folder, array lengths), then each
 * typed array's bytes as they are in memory. A file whose header does not match the folder
 * or this version is ignored, and the index is built again.
 */

const MAGIC = 'redline-source-index';

type ArrayName = (typeof ARRAYS)[number][0];
const ARRAYS = [
  ['texts.bytes', Uint8Array],
  ['texts.starts', Int32Array],
  ['links.bytes', Uint8Array],
  ['links.starts', Int32Array],
  ['documentOf', Int32Array],
  ['words.values', Uint32Array],
  ['words.starts', Int32Array],
  ['bigrams.values', Uint32Array],
  ['bigrams.starts', Int32Array],
  ['lists.slots', Uint32Array],
  ['lists.starts', Int32Array],
  ['lists.ends', Int32Array],
  ['lists.postings', Int32Array],
] as const;

function arraysOf(data: SourceIndexData): Record<ArrayName, Uint8Array | Int32Array | Uint32Array> {
  return {
    'texts.bytes': data.texts.bytes,
    'texts.starts': data.texts.starts,
    'links.bytes': data.links.bytes,
    'links.starts': data.links.starts,
    documentOf: data.documentOf,
    'words.values': data.words.values,
    'words.starts': data.words.starts,
    'bigrams.values': data.bigrams.values,
    'bigrams.starts': data.bigrams.starts,
    'lists.slots': data.lists.slots,
    'lists.starts': data.lists.starts,
    'lists.ends': data.lists.ends,
    'lists.postings': data.lists.postings,
  };
}

interface Header {
  magic: typeof MAGIC;
  version: number;
  endianness: string;
  fingerprint: string;
  documents: number;
  lengths: Record<ArrayName, number>;
}

const padding = (offset: number) => (8 - (offset % 8)) % 8;

/** Writes the index next to its final name, then renames it, so a crash never leaves half a file under that name. */
export function writeSourceIndexFile(file: string, fingerprint: string, data: SourceIndexData): void {
  const arrays = arraysOf(data);
  const lengths = Object.fromEntries(Object.entries(arrays).map(([name, array]) => [name, array.length])) as Record<ArrayName, number>;
  const header: Header = { magic: MAGIC, version: SOURCE_INDEX_VERSION, endianness: endianness(), fingerprint, documents: data.documents, lengths };
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    let offset = 0;
    const write = (bytes: Uint8Array) => {
      writeSync(fd, bytes);
      offset += bytes.length;
    };
    write(Buffer.from(`${JSON.stringify(header)}\n`));
    for (const [name] of ARRAYS) {
      write(new Uint8Array(padding(offset)));
      const array = arrays[name];
      write(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    }
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

/** The index in the file, on arrays from `allocate`; undefined when there is none, or it is of another folder or version. */
export function readSourceIndexFile(file: string, fingerprint: string, allocate: Allocate): SourceIndexData | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const newline = bytes.indexOf(0x0a);
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Header;
  } catch {
    return undefined;
  }
  if (header.magic !== MAGIC || header.version !== SOURCE_INDEX_VERSION || header.endianness !== endianness() || header.fingerprint !== fingerprint) return undefined;
  const arrays = {} as Record<ArrayName, Uint8Array | Int32Array | Uint32Array>;
  let offset = newline + 1;
  for (const [name, type] of ARRAYS) {
    offset += padding(offset);
    const length = header.lengths[name];
    const byteLength = length * type.BYTES_PER_ELEMENT;
    if (!Number.isInteger(length) || length < 0 || offset + byteLength > bytes.length) return undefined;
    const array = allocate(type, length);
    new Uint8Array(array.buffer, array.byteOffset, byteLength).set(bytes.subarray(offset, offset + byteLength));
    arrays[name] = array;
    offset += byteLength;
  }
  if (offset !== bytes.length) return undefined;
  const a = arrays as Record<ArrayName, never>;
  return {
    documents: header.documents,
    texts: { bytes: a['texts.bytes'], starts: a['texts.starts'] },
    links: { bytes: a['links.bytes'], starts: a['links.starts'] },
    documentOf: a.documentOf,
    words: { values: a['words.values'], starts: a['words.starts'] },
    bigrams: { values: a['bigrams.values'], starts: a['bigrams.starts'] },
    lists: { slots: a['lists.slots'], starts: a['lists.starts'], ends: a['lists.ends'], postings: a['lists.postings'] },
  };
}
