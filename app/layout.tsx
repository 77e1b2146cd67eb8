import type { Metadata } from "next";
import type { ReactNode } from "react";
import { MainNav, SessionMenu } from "@/components/shell/main-nav";
import { TRPCReactProvider } from "@/lib/trpc/client";
import "./globals.css";

/** Rendered per request: proxy.ts gives every page a fresh CSP nonce, which a prerendered page would lack. */
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Rebound",
  description: "Keep large distributed training jobs alive.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>
          <header className="shell-header">
            <a className="shell-brand" href="/">
              Rebound
            </a>
            <MainNav />
            <SessionMenu />
          </header>
          <main className="shell-main">{children}</main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
