/**
 * Cuts a decoded output stream into lines. "\n", "\r\n" and a lone "\r" end a line (Python's universal
 * newlines, which the HyperPod agent's readline sees; progress bars redraw with "\r"). A line longer than
 * `maxChars` keeps its first `maxChars` characters and the rest is dropped as it arrives, so memory stays
 * bounded whatever a worker prints.
 */

export type LineSplitter = {
  push(text: string): void;
  /** Emits an unterminated last line, if any. */
  end(): void;
};

const BREAK = /[\r\n]/g;

type SplitterState = { buffer: string; pending: boolean; skipLf: boolean };

function append(
  state: SplitterState,
  input: { text: string; from: number; to: number; maxChars: number },
): void {
  state.pending = true;
  const room = input.maxChars - state.buffer.length;
  if (room > 0) state.buffer += input.text.slice(input.from, Math.min(input.to, input.from + room));
}

/** Where the next line starts after a break found at `index` ("\r\n" is one break). */
function afterBreak(state: SplitterState, text: string, index: number): number {
  const next = index + 1;
  if (text.charAt(index) !== "\r") return next;
  state.skipLf = next === text.length;
  return text.charAt(next) === "\n" ? next + 1 : next;
}

/** Skips the "\n" of a "\r\n" that was split between two chunks. */
function firstIndex(state: SplitterState, text: string): number {
  const skip = state.skipLf && text.startsWith("\n");
  state.skipLf = false;
  return skip ? 1 : 0;
}

export function createLineSplitter(input: {
  maxChars: number;
  onLine: (line: string) => void;
}): LineSplitter {
  const { maxChars, onLine } = input;
  const state: SplitterState = { buffer: "", pending: false, skipLf: false };
  const flush = () => {
    const line = state.buffer;
    state.buffer = "";
    state.pending = false;
    onLine(line);
  };
  return {
    push(text) {
      let start = firstIndex(state, text);
      while (start < text.length) {
        BREAK.lastIndex = start;
        const found = BREAK.exec(text);
        const end = found === null ? text.length : found.index;
        append(state, { text, from: start, to: end, maxChars });
        if (found === null) return;
        flush();
        start = afterBreak(state, text, end);
      }
    },
    end() {
      if (state.pending) flush();
    },
  };
}
