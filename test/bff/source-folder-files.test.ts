import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BffPlagiarismResponse } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { startBff } from '@redline/bff/server';
import { newOperationId, request, startHarness, type Harness } from './harness.ts';

// Source files as an outside probe found them in real folders: written on old systems, or
// beside folders whose names end like a source's.

let h: Harness;
let sources: string;
const FRENCH = 'Le café du coin servait des crêpes délicieuses chaque matin avant huit heures.';
const MAC = 'Old Macintosh files used a lone carriage return between every single line of text.';
const UTF8 = 'Lighthouses guided sailors along dangerous coasts for centuries before satellite navigation existed.';

beforeAll(async () => {
  sources = mkdtempSync(path.join(tmpdir(), 'redline-sources-'));
  writeFileSync(path.join(sources, 'latin1.txt'), Buffer.from(`https://library.example.org/cafe\n${FRENCH}\n`, 'latin1'));
  writeFileSync(path.join(sources, 'classic-mac.txt'), `https://library.example.org/mac\r${MAC}\rAnother line.\r`);
  writeFileSync(path.join(sources, 'lighthouses.txt'), `\uFEFFhttps://library.example.org/lighthouses\r\n${UTF8}\r\n`);
  mkdirSync(path.join(sources, 'drafts.md'));
  writeFileSync(path.join(sources, 'drafts.md', 'inside.txt'), 'A subfolder is not searched, whatever its name.');
  h = await startHarness({ offline: true, env: { BFF_OFFLINE_SOURCES_DIR: sources } });
});
afterAll(async () => {
  await h.close();
  rmSync(sources, { recursive: true, force: true });
});

const check = async (text: string) => {
  const response = await h.call('/v1/plagiarism', { operationId: newOperationId(), text });
  expect(response.status).toBe(200);
  return BffPlagiarismResponse.parse(response.body).result.result.results;
};

it('a subfolder whose name ends in .md is skipped like any subfolder, not a reason to refuse every source check', async () => {
  expect((await check(UTF8))[0]).toMatchObject({ web_sentence: UTF8, similarity: 1, link: 'https://library.example.org/lighthouses' });
});

it('a file in Latin-1 (not UTF-8) is read as Latin-1: its copied sentences match in full, shown as written', async () => {
  expect((await check(FRENCH))[0]).toMatchObject({ web_sentence: FRENCH, similarity: 1, link: 'https://library.example.org/cafe' });
});

it('a file with lone carriage returns for line ends has its first-line link', async () => {
  expect((await check(MAC))[0]).toMatchObject({ web_sentence: MAC, similarity: 1, link: 'https://library.example.org/mac' });
});

it('a source check refused because the folder could not be indexed runs when repeated after the folder is fixed and the BFF restarted', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-data-'));
  const folder = path.join(dataDir, 'not-yet-there');
  const operationId = newOperationId();
  const first = await startHarness({ offline: true, env: { BFF_DATA_DIR: dataDir, BFF_OFFLINE_SOURCES_DIR: folder } });
  const token = first.token;
  try {
    const refused = await first.call('/v1/plagiarism', { operationId, text: UTF8 });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'sources_unavailable' });
    expect(refused.body.error.message).toMatch(/source folder could not be indexed/);
  } finally {
    await first.close();
  }
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'lighthouses.txt'), `https://library.example.org/lighthouses\n${UTF8}\n`);
  // Restarted on the same data folder (and so the same member and operation).
  const second = await startBff(loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_LOG_LEVEL: 'silent', BFF_OFFLINE_SOURCES_DIR: folder }));
  try {
    // The writer's Retry sends the same operation id: it must not be answered with the old refusal.
    const response = await request(second.url, '/v1/plagiarism', { operationId, text: UTF8 }, token);
    expect(response.status).toBe(200);
    expect(BffPlagiarismResponse.parse(response.body).result.result.results[0]).toMatchObject({ web_sentence: UTF8, link: 'https://library.example.org/lighthouses' });
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
