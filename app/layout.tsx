import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { ConsoleChrome } from "@/components/shell/main-nav";
import { TRPCReactProvider } from "@/lib/trpc/client";
import "./globals.css";

/** Rendered per request: proxy.ts gives every page a fresh CSP nonce, which a prerendered page would lack. */
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Rebound",
  description: "Keep large distributed training jobs alive.",
};

/** The browser's own UI (scroll bars, form controls, the mobile address bar) in the theme the system asks for. */
export const viewport: Viewport = {
  colorScheme: "dark light",
  themeColor: [
    { media: "(prefers-color-scheme: dark)", color: "#0f1419" },
    { media: "(prefers-color-scheme: light)", color: "#f6f8fa" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>
          <ConsoleChrome>{children}</ConsoleChrome>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
