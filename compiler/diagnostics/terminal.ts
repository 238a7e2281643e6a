/**
 * Text on its way to a terminal (issue 29): rule titles, scenario names, source lines, file
 * contents quoted in messages — any of them can carry control characters a terminal acts on (an
 * OSC sequence in a rule title set the window title and wrote the clipboard). `terminalSafe`
 * shows every such character as a visible escape instead; `terminalSafeOutput` does the same to a
 * whole chunk of the CLI's output but keeps the styling the CLI writes itself (the colours of
 * picocolors and the progress line's redraw). The CLI routes stdout and stderr through
 * `guardTerminalOutput` (compiler/cli/main.ts), so nothing it prints escapes both.
 */

/**
 * What a terminal would act on: C0 controls except tab and line feed (carriage return, escape,
 * bell, backspace …), DEL, the C1 controls U+0080–U+009F (U+009B is a one-character CSI, U+009D
 * an OSC), and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) that make a line read other than it is.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const ANY_UNSAFE = new RegExp(UNSAFE.source);

/** `\u001b`: the JSON escape, so a JSON document stays valid JSON with the same value. */
const escapeOne = (c: string) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");

/**
 * `text` with every control character a terminal acts on (`UNSAFE`: C0 but tab and line feed,
 * DEL, C1, bidirectional overrides and isolates) written as its visible escape `\uXXXX`. Any
 * other text is unchanged; the result contains no escape sequence.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** One colour or weight as picocolors writes it (`ESC[31m`, `ESC[39m`, `ESC[1m` …; not `ESC[8m`, concealed). */
const SGR = /\x1b\[(?:0|1|2|22|3[0-7]|39|9[0-7])m/y;
const PROGRESS_REDRAW = "\r\x1b[2K";

/**
 * A chunk of the CLI's output made safe for a terminal: as `terminalSafe`, except the styling
 * the CLI writes itself — an SGR sequence of one colour or weight, a carriage return before a line
 * feed, and `\r ESC[2K` (return, erase the line) at the very start of a chunk, as the progress
 * line redraws itself. JSON documents stay valid and keep their values (JSON.stringify already
 * escapes C0; C1 and bidirectional controls inside strings become `\uXXXX` of the same character).
 */
export function terminalSafeOutput(chunk: string): string {
  if (!ANY_UNSAFE.test(chunk)) return chunk;
  let out = "";
  let i = 0;
  if (chunk.startsWith(PROGRESS_REDRAW)) {
    out = PROGRESS_REDRAW;
    i = PROGRESS_REDRAW.length;
  }
  while (i < chunk.length) {
    const c = chunk[i]!;
    if (c === "\x1b") {
      SGR.lastIndex = i;
      const m = SGR.exec(chunk);
      if (m) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    out += (c === "\r" && chunk[i + 1] === "\n") || !isUnsafe(c) ? c : escapeOne(c);
    i++;
  }
  return out;
}

const isUnsafe = (c: string) => {
  const k = c.charCodeAt(0);
  return (k < 0x20 && k !== 0x09 && k !== 0x0a) || (k >= 0x7f && k <= 0x9f) || (k >= 0x202a && k <= 0x202e) || (k >= 0x2066 && k <= 0x2069);
};

/** A Buffer chunk with its one-byte controls (C0 but tab and line feed, DEL) escaped; multi-byte characters untouched. */
function safeBytes(chunk: Uint8Array): Uint8Array {
  const unsafe = (b: number) => (b < 0x20 && b !== 0x09 && b !== 0x0a) || b === 0x7f;
  if (!chunk.some(unsafe)) return chunk;
  const parts: Buffer[] = [];
  let from = 0;
  chunk.forEach((b, k) => {
    if (!unsafe(b)) return;
    parts.push(Buffer.from(chunk.subarray(from, k)), Buffer.from(escapeOne(String.fromCharCode(b)), "latin1"));
    from = k + 1;
  });
  parts.push(Buffer.from(chunk.subarray(from)));
  return Buffer.concat(parts);
}

/**
 * Routes `process.stdout.write` and `process.stderr.write` through `terminalSafeOutput` (string
 * chunks; a Buffer has its one-byte controls escaped, ESC included) until the returned function
 * is called. Not for a protocol channel (the language server's stdout): it changes bytes.
 */
export function guardTerminalOutput(): () => void {
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((s) => s.write);
  streams.forEach((s, k) => {
    const write = originals[k]!;
    s.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      let safe = chunk;
      if (typeof chunk === "string") safe = terminalSafeOutput(chunk);
      else if (chunk instanceof Uint8Array) safe = safeBytes(chunk);
      return (write as (...a: unknown[]) => boolean).call(this, safe, ...rest);
    } as typeof s.write;
  });
  return () => streams.forEach((s, k) => (s.write = originals[k]!));
}
