import { type Document, isAlias, isCollection, isMap, isNode, isScalar, isSeq, type LineCounter } from "yaml";
import type { IssuePath, Locator, SourcePosition } from "./job-spec-errors";

type Located = { key?: unknown; value: unknown };

function step(node: unknown, segment: PropertyKey, doc: Document): Located | undefined {
  const target = isAlias(node) ? node.resolve(doc) : node;
  if (isMap(target)) {
    const pair = target.items.find(
      (item) => isScalar(item.key) && String(item.key.value) === String(segment),
    );
    return pair && { key: pair.key, value: pair.value };
  }
  if (isSeq(target) && typeof segment === "number") {
    const item = target.items[segment];
    return item === undefined ? undefined : { value: item };
  }
  return undefined;
}

type Walk = { found: boolean; anchor: unknown; node: unknown; lastKey: unknown };

/** Follows `path` as far as it exists; `anchor` is the key (or list item) that holds the last node reached. */
function walk(doc: Document, path: IssuePath): Walk {
  let walked: Walk = { found: true, anchor: doc.contents, node: doc.contents, lastKey: undefined };
  for (const segment of path) {
    const next = step(walked.node, segment, doc);
    if (next === undefined) return { ...walked, found: false };
    walked = { found: true, anchor: next.key ?? next.value, node: next.value, lastKey: next.key };
  }
  return walked;
}

/**
 * Finds where a zod issue path was written in a YAML document. A path that does not exist (a missing
 * field) resolves to its deepest existing ancestor; a collection value resolves to the key that holds it.
 */
export function createYamlLocator(doc: Document, lineCounter: LineCounter): Locator {
  const positionOf = (node: unknown): SourcePosition | undefined => {
    if (!isNode(node) || !node.range) return undefined;
    const { line, col } = lineCounter.linePos(node.range[0]);
    return { line, column: col };
  };

  return (path: IssuePath, target: "key" | "value") => {
    const walked = walk(doc, path);
    if (!walked.found) return positionOf(walked.anchor);
    if (target === "key" && walked.lastKey !== undefined) return positionOf(walked.lastKey);
    const preferAnchor = isCollection(walked.node) && walked.anchor !== walked.node;
    return positionOf(preferAnchor ? walked.anchor : walked.node) ?? positionOf(walked.anchor);
  };
}
