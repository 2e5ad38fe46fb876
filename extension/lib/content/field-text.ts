/**
 * A text field's value as captured text (shared/CONTRACT.md, "Captured text"), so a field and
 * a rich editor with the same content send the same text: a run of line breaks is "\n" (one
 * break) or "\n\n" (two or more); no break before the first or after the last character. A
 * line break is "\n", "\r\n" or a lone "\r" (a value set by a script may hold them; a typed
 * one holds "\n" only). Everything else, other whitespace included (tabs, NBSP, U+2028,
 * U+2029), is kept as it is. Offsets map both ways, exactly, for selecting and highlighting.
 */
export interface FieldText {
  text: string;
  /** The text is the value: offsets are the same (most fields). */
  same: boolean;
  /**
   * The value offset of a text offset: where text character `offset` starts, or with
   * `asEnd`, where character `offset - 1` ends. They differ only at a collapsed run of breaks,
   * which a range ending there covers up to its last break.
   */
  toValue(offset: number, asEnd?: boolean): number;
  /** The text offset of a value offset: the number of text characters that end at or before it. */
  toText(offset: number): number;
}

const BREAK = /\r\n|\r|\n/y;

export function fieldText(value: string): FieldText {
  if (!/[\r\n]/.test(value) || !/^[\r\n]|[\r\n]$|(\r\n|\r|\n){3}|\r/.test(value)) return identity(value);
  let text = '';
  /** Per text character: where it starts and ends in the value. */
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  while (at < value.length) {
    const breaks: [number, number][] = [];
    BREAK.lastIndex = at;
    for (let match = BREAK.exec(value); match; BREAK.lastIndex = at, match = BREAK.exec(value)) {
      breaks.push([at, at + match[0].length]);
      at += match[0].length;
    }
    if (breaks.length === 0) {
      starts.push(at);
      ends.push(at + 1);
      text += value[at++];
      continue;
    }
    if (text === '' || at === value.length) continue; // leading or trailing: no break
    // The first and the last break of the run stand for it, so a range over the run covers all of it.
    const kept = breaks.length === 1 ? breaks : [breaks[0]!, breaks.at(-1)!];
    for (const [start, end] of kept) {
      starts.push(start);
      ends.push(end);
      text += '\n';
    }
  }
  return {
    text,
    same: false,
    toValue(offset, asEnd = false) {
      if (asEnd) return offset <= 0 || ends.length === 0 ? (starts[0] ?? value.length) : ends[Math.min(offset, ends.length) - 1]!;
      return offset < starts.length ? starts[Math.max(0, offset)]! : (ends.at(-1) ?? value.length);
    },
    toText(offset) {
      // Binary search: the count of characters with ends[i] <= offset.
      let low = 0;
      let high = ends.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (ends[mid]! <= offset) low = mid + 1;
        else high = mid;
      }
      return low;
    },
  };
}

function identity(value: string): FieldText {
  const clamp = (offset: number) => Math.max(0, Math.min(offset, value.length));
  return { text: value, same: true, toValue: clamp, toText: clamp };
}
