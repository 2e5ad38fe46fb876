import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SourceIndex, sharedArrays, type SourceDocument, type SourceIndexData } from '@redline/shared/analysis';
import { readSourceIndexFile, writeSourceIndexFile } from './source-index-file.ts';

const hasSourceName = (name: string) => /\.(txt|md)$/i.test(name);
/** The folder's source files, by name; a subfolder is not searched, whatever its name ends in (a link to a file counts). */
const sourceFiles = (folder: string) =>
  readdirSync(folder)
    .filter((name) => hasSourceName(name) && statSync(path.resolve(folder, name)).isFile())
    .sort();

const utf8 = new TextDecoder('utf-8', { fatal: true });
const windows1252 = new TextDecoder('windows-1252');

/**
 * A source file's text: UTF-8 (without its byte order mark), or, when its bytes are not UTF-8,
 * Windows-1252, the Latin-1 that older text files are in; decoding those as UTF-8 would put
 * U+FFFD in place of every accented letter, and copied sentences would no longer match.
 */
function decodeSource(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return windows1252.decode(bytes);
  }
}

/**
 * Loads plagiarism sources from a folder of .txt and .md files. A file whose first line is
 * an http(s) URL uses it as the source link; otherwise the link is the file's file:// URL.
 */
export function loadSourceFolder(folder: string): SourceDocument[] {
  return sourceFiles(folder).map((name) => {
    const file = path.resolve(folder, name);
    const content = decodeSource(readFileSync(file));
    const [firstLine = '', ...rest] = content.split(/\r\n?|\n/);
    const hasLink = /^https?:\/\/\S+$/.test(firstLine.trim());
    return { link: hasLink ? firstLine.trim() : pathToFileURL(file).href, text: (hasLink ? rest.join('\n') : content).trim() };
  });
}

/** Names, sizes and modification times of the folder's sources: a file added, removed or edited changes it. */
export function sourceFolderFingerprint(folder: string): string {
  const hash = createHash('sha256').update(path.resolve(folder));
  for (const name of sourceFiles(folder)) {
    const { size, mtimeMs } = statSync(path.resolve(folder, name));
    hash.update(`\0${name}\0${size}\0${mtimeMs}`);
  }
  return hash.digest('hex');
}

export interface PreparedSourceIndex {
  /** On SharedArrayBuffers: every analysis thread reads the same index. */
  data: SourceIndexData;
  /** Whether it was read from the index file rather than built from the folder. */
  fromFile: boolean;
  /** Why the index file could not be written, when it could not (the index works all the same). */
  fileError?: string;
  sentences: number;
  ms: number;
}

/** The folder's index: read from `indexFile` when that was saved for the folder as it is now, else built and saved there. */
export function prepareSourceIndex({ folder, indexFile }: { folder: string; indexFile?: string | undefined }): PreparedSourceIndex {
  const started = performance.now();
  const fingerprint = sourceFolderFingerprint(folder);
  const saved = indexFile ? readSourceIndexFile(indexFile, fingerprint, sharedArrays) : undefined;
  const data = saved ?? new SourceIndex(loadSourceFolder(folder), sharedArrays).data;
  let fileError: string | undefined;
  if (!saved && indexFile) {
    try {
      writeSourceIndexFile(indexFile, fingerprint, data);
    } catch (error) {
      fileError = (error as Error).message;
    }
  }
  return { data, fromFile: saved !== undefined, ...(fileError ? { fileError } : {}), sentences: data.documentOf.length, ms: Math.round(performance.now() - started) };
}
