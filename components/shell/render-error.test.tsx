import { readFileSync } from "node:fs";
import { isValidElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import ErrorPage from "@/app/error";
import GlobalError from "@/app/global-error";
import { RenderError } from "./render-error";

/**
 * The console's own error pages (issue 36 item 10): a render that throws is said in the console's styles,
 * with the error's reference, a way home and a retry (RenderError: a render error may be passing), never the
 * framework's bare page. app/error.tsx keeps the console's frame; app/global-error.tsx replaces the root
 * layout, so it must bring the page's <html> and the console's stylesheet itself.
 */

// The stylesheet is seen being imported: a global error page without it would be unstyled.
const stylesheet = vi.hoisted(() => ({ imported: false }));
vi.mock("@/app/globals.css", () => {
  stylesheet.imported = true;
  return {};
});

type Thrown = Error & { digest?: string };
const thrown = (message: string, digest?: string): Thrown =>
  Object.assign(new Error(message), digest === undefined ? {} : { digest });

/** The "Try again" buttons in a page's element tree (RenderError expanded; it uses no hooks). */
function retryButtons(node: ReactNode): Array<ReactElement<{ onClick: () => void }>> {
  if (Array.isArray(node)) return node.flatMap(retryButtons);
  if (!isValidElement<{ children?: ReactNode }>(node)) return [];
  if (node.type === RenderError)
    return retryButtons(RenderError(node.props as Parameters<typeof RenderError>[0]));
  if (node.type === "button" && node.props.children === "Try again")
    return [node as ReactElement<{ onClick: () => void }>];
  return retryButtons(node.props.children);
}

const css = readFileSync(new URL("../../app/globals.css", import.meta.url), "utf8");

describe("a page that fails while rendering (app/error.tsx)", () => {
  it("says so in the console's styles, with the error's reference, a way home and a retry", () => {
    const html = renderToStaticMarkup(
      <ErrorPage error={thrown("the operator did not answer", "2841907315")} reset={() => {}} />,
    );
    expect(html).toContain('<section class="card error-page" role="alert" aria-labelledby="error-heading">');
    expect(html).toContain('<p class="error-code">Error</p>');
    expect(html).toContain('<h1 id="error-heading">This page could not be shown</h1>');
    expect(html).toContain("the operator did not answer (reference 2841907315)");
    expect(html).toMatch(/<a class="button button-secondary" href="\/">Go to the overview<\/a>/);
    expect(html).toContain('<button type="button" class="button">Try again</button>');
    // Inside the console's frame: not a document of its own.
    expect(html).not.toContain("<html");
  });

  it("says something when the error has no message, and no reference when it has no digest", () => {
    const html = renderToStaticMarkup(<ErrorPage error={thrown("")} reset={() => {}} />);
    expect(html).toContain("Something went wrong while rendering it.");
    expect(html).not.toContain("reference");
  });

  it("retries the render when Try again is pressed", () => {
    const reset = vi.fn();
    const buttons = retryButtons(ErrorPage({ error: thrown("boom"), reset }));
    expect(buttons).toHaveLength(1);
    buttons[0]?.props.onClick();
    expect(reset).toHaveBeenCalledOnce();
  });
});

describe("a root layout that fails (app/global-error.tsx)", () => {
  it("is a whole styled document with the heading, the reference, a plain link home and a retry", () => {
    const reset = vi.fn();
    const page = GlobalError({ error: thrown("layout failed", "77"), reset });
    const html = renderToStaticMarkup(page);
    expect(html).toMatch(
      /^<html lang="en">(<head><\/head>)?<body><main class="shell-main"><section class="card error-page"/,
    );
    expect(html).toContain('<h1 id="global-error-heading">The console could not be shown</h1>');
    expect(html).toContain("layout failed (reference 77)");
    // A plain anchor: the client router may be what failed.
    expect(html).toContain('<a class="button button-secondary" href="/">Go to the overview</a>');
    const buttons = retryButtons(page);
    expect(buttons).toHaveLength(1);
    buttons[0]?.props.onClick();
    expect(reset).toHaveBeenCalledOnce();
  });

  it("brings the console's stylesheet, which styles every class the error pages use", () => {
    expect(stylesheet.imported).toBe(true);
    for (const selector of [
      ".shell-main",
      ".card",
      ".error-page",
      ".error-code",
      ".button",
      ".button-secondary",
    ])
      expect(css).toMatch(new RegExp(`^\\${selector}[ ,{]`, "m"));
  });
});
