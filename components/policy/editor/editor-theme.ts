/**
 * The policy editor's look, drawn from the console's CSS variables (app/globals.css) so it follows the
 * console's theme, dark or light, without a second palette: CodeMirror resolves `var(--…)` at paint time.
 */
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import type { Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

const chrome = EditorView.theme({
  "&": {
    backgroundColor: "var(--bg)",
    color: "var(--text)",
    border: "1px solid var(--panel-border)",
    borderRadius: "var(--radius)",
    fontSize: "13px",
  },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "1px" },
  ".cm-content": {
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    caretColor: "var(--text)",
  },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  ".cm-gutters": {
    backgroundColor: "var(--panel)",
    color: "var(--muted)",
    borderRight: "1px solid var(--panel-border)",
  },
  // The active line is marked in the gutter only: a tint behind the text took the light theme's warn, ok
  // and accent colours below 4.5:1 contrast.
  ".cm-activeLine": { backgroundColor: "transparent" },
  ".cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--accent) 12%, transparent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)",
  },
  ".cm-tooltip": {
    backgroundColor: "var(--panel)",
    color: "var(--text)",
    border: "1px solid var(--panel-border)",
    borderRadius: "6px",
    maxWidth: "480px",
  },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": {
    backgroundColor: "var(--accent)",
    color: "var(--bg)",
  },
  ".cm-tooltip.cm-completionInfo": { padding: "6px 8px" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--bad)" },
  ".cm-diagnostic-warning": { borderLeftColor: "var(--warn)" },
  ".cm-lintRange-error": { textDecoration: "underline wavy var(--bad)", backgroundImage: "none" },
  ".cm-lintRange-warning": { textDecoration: "underline wavy var(--warn)", backgroundImage: "none" },
  ".cm-policy-doc": { padding: "6px 8px", fontSize: "13px", lineHeight: "1.4" },
  ".cm-policy-doc code": { color: "var(--accent)" },
  ".cm-policy-doc .cm-policy-doc-example": {
    color: "var(--muted)",
    whiteSpace: "pre-wrap",
    marginTop: "4px",
  },
});

const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: "var(--accent)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--ok)" },
  { tag: [tags.number, tags.bool, tags.null, tags.keyword], color: "var(--warn)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--muted)", fontStyle: "italic" },
  {
    tag: [tags.meta, tags.punctuation, tags.separator, tags.squareBracket, tags.brace],
    color: "var(--muted)",
  },
  { tag: tags.invalid, color: "var(--bad)" },
]);

/** The editor chrome and YAML highlighting in the console's colours. */
export const policyEditorTheme: Extension = [chrome, syntaxHighlighting(highlight)];
