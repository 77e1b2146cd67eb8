/**
 * Where the cursor is in a policy YAML, as a field path (`logMonitoringConfiguration[].logPattern`), read
 * from indentation and list markers only: completion and hover need it while the document is half typed and
 * does not parse. Block style only (what the templates and HyperPod's examples use); flow mappings give null.
 */

/** A field path's segments: keys, and "[]" for an item of a list. */
export type PathSegments = readonly string[];

/** `["logMonitoringConfiguration", "[]", "logPattern"]` → `logMonitoringConfiguration[].logPattern`. */
export function joinPath(segments: PathSegments): string {
  let out = "";
  for (const segment of segments) out += segment === "[]" ? "[]" : out === "" ? segment : `.${segment}`;
  return out;
}

/** A whole HyperPodPyTorchJob's `spec.runPolicy.…` paths are read as the policy's own. */
export function policyPath(segments: PathSegments): PathSegments {
  return segments[0] === "spec" && segments[1] === "runPolicy" ? segments.slice(2) : segments;
}

type Line = {
  /** Column of the first list marker, if the line starts with "- ". */
  dash: number | null;
  /** Column where the line's content (after indentation and list markers) starts. */
  content: number;
  /** The key when the content is `key:` or `key: value`. */
  key: string | null;
  /** True when the key has nothing after the colon (a nested mapping or list follows). */
  opens: boolean;
  blank: boolean;
};

const LINE = /^(\s*)((?:-(?:\s+|$))*)(.*)$/;
const KEY = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$|^([A-Za-z_][\w.-]*)\s*:$/;

function readLine(text: string): Line {
  const match = LINE.exec(text) ?? ["", "", "", text];
  const indent = match[1]?.length ?? 0;
  const markers = match[2] ?? "";
  const rest = match[3] ?? "";
  const keyMatch = KEY.exec(rest.replace(/\s+#.*$/, ""));
  const key = keyMatch?.[1] ?? keyMatch?.[3] ?? null;
  const value = (keyMatch?.[2] ?? "").trim();
  return {
    dash: markers === "" ? null : indent,
    content: indent + markers.length,
    key,
    opens: key !== null && (value === "" || value.startsWith("#")),
    blank: rest.trim() === "" || rest.trimStart().startsWith("#"),
  };
}

type Walk = { column: number; owner: boolean };

/** One step up: the segments a line above adds to the path, and the new walk, or null to skip it. */
function stepUp(line: Line, walk: Walk): { add: string[]; walk: Walk } | "skip" | "stop" {
  if (line.blank) return "skip";
  if (!walk.owner && line.dash !== null && line.dash < walk.column && line.content === walk.column) {
    // The first line of the list item we are in.
    return { add: ["[]"], walk: { column: line.dash, owner: true } };
  }
  const above = walk.owner
    ? line.content <= walk.column && line.dash !== walk.column
    : line.content < walk.column;
  if (!above) return "skip";
  if (line.key === null || !line.opens) return "stop";
  if (line.dash !== null) return { add: ["[]", line.key], walk: { column: line.dash, owner: true } };
  return { add: [line.key], walk: { column: line.content, owner: false } };
}

/** The path of the mapping or list that holds a line's content at `column` (`inItem`: right after "- "). */
function parentPath(lines: readonly string[], index: number, start: { column: number; inItem: boolean }) {
  const reversed: string[] = start.inItem ? ["[]"] : [];
  let walk: Walk = { column: start.column, owner: start.inItem };
  for (let i = index - 1; i >= 0 && (walk.owner || walk.column > 0); i--) {
    const line = readLine(lines[i] ?? "");
    const step = stepUp(line, walk);
    if (step === "stop") return null;
    if (step === "skip") continue;
    reversed.push(...step.add);
    walk = step.walk;
  }
  return reversed.reverse();
}

export type YamlContext =
  /** Typing a key: `parent` is the mapping's path, `from` where the key starts. */
  | { kind: "key"; parent: PathSegments; prefix: string; from: number }
  /** Typing the value of `path` (after `key: `). */
  | { kind: "value"; path: PathSegments; prefix: string; from: number };

type Typing = { column: number; inItem: boolean; rest: string; content: number };

/** The current line up to the cursor: where its content starts and whether it opens a list item. */
function typingOn(before: string): Typing | null {
  const match = LINE.exec(before);
  if (!match) return null;
  const indent = match[1]?.length ?? 0;
  const markers = match[2] ?? "";
  const content = indent + markers.length;
  const inItem = markers !== "";
  return { column: inItem ? indent : content, inItem, rest: match[3] ?? "", content };
}

const VALUE = /^([A-Za-z_][\w.-]*)\s*:\s+([\w.-]*)$/;
const PARTIAL_KEY = /^[A-Za-z_]?[\w.-]*$/;

/** What is being typed at `offset` in `text`, or null where neither a key nor a plain value fits. */
export function yamlContextAt(text: string, offset: number): YamlContext | null {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lines = text.slice(0, lineStart).split("\n");
  lines.pop();
  const typing = typingOn(text.slice(lineStart, offset));
  if (typing === null) return null;
  const valueMatch = VALUE.exec(typing.rest);
  if (valueMatch === null && !PARTIAL_KEY.test(typing.rest)) return null;
  const parent = parentPath(lines, lines.length, typing);
  if (parent === null) return null;
  if (valueMatch?.[1] === undefined) {
    return { kind: "key", parent, prefix: typing.rest, from: lineStart + typing.content };
  }
  const prefix = valueMatch[2] ?? "";
  return { kind: "value", path: [...parent, valueMatch[1]], prefix, from: offset - prefix.length };
}

/** The path of the key written on line `lineIndex` (0-based), or null when that line has no key. */
export function keyPathAtLine(text: string, lineIndex: number): PathSegments | null {
  const lines = text.split("\n");
  const line = readLine(lines[lineIndex] ?? "");
  if (line.key === null) return null;
  const inItem = line.dash !== null;
  const parent = parentPath(lines, lineIndex, { column: inItem ? (line.dash ?? 0) : line.content, inItem });
  return parent === null ? null : [...parent, line.key];
}
