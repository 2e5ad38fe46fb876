import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpError, incompleteBody } from '../errors.ts';
import { bodyTooLarge, malformedJson, NOT_UTF8, notUtf8 } from './answer.ts';

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;
/** application/json or application/<anything>+json, parameters aside. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * express.json's `verify`: refuses a body that is not UTF-8, as readJsonBody does. Decoding
 * would replace the bad bytes with U+FFFD, and the text analysed and charged would not be the
 * text sent. It throws a plain error of its own type (body-parser writes the raw body onto
 * what `verify` throws), which the error answer turns into notUtf8().
 */
export function refuseNonUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { type: NOT_UTF8 });
}

const notJson = () => HttpError.of(415, 'unsupported_content_type', 'Send the request body as JSON with "Content-Type: application/json".');

/**
 * Reads a JSON request body with a byte limit (after decompression) and parses it once.
 * A leaner stand-in for express.json on the /v1 routes: the same limits and answers, without
 * its per-request content negotiation machinery.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) return Promise.reject(notJson());
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(bodyTooLarge(limit));
  const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return Promise.reject(HttpError.of(415, 'unsupported_content_type', 'Send the body as UTF-8 JSON.'));
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: Readable = req;
  if (encoding !== 'identity') {
    const decoder = DECODERS[encoding];
    if (!decoder) {
      return Promise.reject(HttpError.of(415, 'unsupported_content_encoding', `Content-Encoding "${encoding.slice(0, 20)}" is not supported: send the body uncompressed, or with gzip, deflate or br.`));
    }
    source = req.pipe(decoder()) as unknown as Readable;
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: HttpError | undefined, body?: unknown) => {
      if (done) return;
      done = true;
      source.removeAllListeners('data');
      req.removeListener('error', cutOff);
      if (source !== req) {
        req.unpipe();
        source.destroy();
      }
      if (error) {
        // Whatever is left of the body is read and dropped by node:http after the answer.
        req.resume();
        reject(error);
      } else {
        resolve(body);
      }
    };
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(bodyTooLarge(limit));
      chunks.push(chunk);
    });
    source.on('end', () => {
      if (size === 0) return finish(undefined, {});
      const body = Buffer.concat(chunks, size);
      if (!isUtf8(body)) return finish(notUtf8());
      try {
        finish(undefined, JSON.parse(body.toString('utf8')));
      } catch {
        finish(malformedJson(body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf));
      }
    });
    const cutOff = () => finish(incompleteBody());
    req.once('error', cutOff);
    if (source !== req) {
      source.on('error', () =>
        finish(HttpError.of(400, 'invalid_content_encoding', `The request body is not valid ${encoding} data, as its Content-Encoding says, or is cut off. Send it whole, or uncompressed without Content-Encoding.`)),
      );
    }
  });
}
