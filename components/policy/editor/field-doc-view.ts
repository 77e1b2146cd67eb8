/**
 * A runPolicy field's docs as a DOM node for CodeMirror's hover tooltip and completion info: the path, its
 * kind (required or not, the values it takes), the FIELD_DOCS summary, detail and example. Text only
 * (textContent), never HTML from the docs.
 */
import type { PolicyField } from "./field-catalog";

function element(tag: string, text: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

function kindText(field: PolicyField): string {
  const values = field.values.length > 0 ? `: ${field.values.join(" | ")}` : "";
  return `${field.required ? "required " : ""}${field.kind}${values}`;
}

export function fieldDocNode(field: PolicyField): HTMLElement {
  const root = element("div", "", "cm-policy-doc");
  const title = document.createElement("div");
  title.append(element("code", field.path), document.createTextNode(` · ${kindText(field)}`));
  root.append(title);
  root.append(element("p", field.doc?.summary ?? "No description yet."));
  if (field.doc?.detail !== undefined) root.append(element("p", field.doc.detail));
  if (field.doc?.example !== undefined)
    root.append(element("pre", field.doc.example, "cm-policy-doc-example"));
  return root;
}
