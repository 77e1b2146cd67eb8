import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/lib/trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Rebound",
  description: "Keep large distributed training jobs alive.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="shell-header">
          <a className="shell-brand" href="/">
            Rebound
          </a>
          <nav className="shell-nav" aria-label="Main">
            <a href="/" aria-current="page">
              Overview
            </a>
          </nav>
        </header>
        <TRPCReactProvider>
          <main className="shell-main">{children}</main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
