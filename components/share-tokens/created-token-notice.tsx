"use client";

import { useState } from "react";
import type { CreatedShareToken } from "@/server/services/share-tokens/share-tokens.schema";
import { formatExpiry } from "./last-used";
import styles from "./share-tokens.module.css";

/** The link with its secret, or the pairing code: shown here once, never again (stored hashed). */
export function CreatedTokenNotice(props: { created: CreatedShareToken; onDismiss: () => void }) {
  const { created } = props;
  return (
    <section className={styles.created} aria-labelledby="created-token-heading">
      <h3 id="created-token-heading">
        {created.kind === "link" ? "Link" : "Pairing code"} for {created.token.label}
      </h3>
      {created.kind === "link" ? <SecretLink link={created.link} /> : <PairingCode created={created} />}
      <p>
        <button type="button" className="button button-secondary" onClick={props.onDismiss}>
          Done
        </button>
      </p>
    </section>
  );
}

function SecretLink(props: { link: string }) {
  const url = typeof window === "undefined" ? props.link : `${window.location.origin}${props.link}`;
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <>
      <p>
        <strong>Shown once.</strong> Copy it now and open it on the TV: the console keeps only its hash, so it
        cannot show it again. Anyone with this link sees the views it names until you revoke it.
      </p>
      <div className={styles.secret}>
        <label htmlFor="created-token-link" className="sr-only">
          TV link
        </label>
        <input id="created-token-link" type="text" readOnly value={url} onFocus={(e) => e.target.select()} />
        <button type="button" className="button" onClick={copy}>
          Copy link
        </button>
        <span role="status" className={styles.hint}>
          {copied === "yes"
            ? "Copied"
            : copied === "failed"
              ? "Copy failed: select the link and copy it"
              : ""}
        </span>
      </div>
    </>
  );
}

function PairingCode(props: { created: Extract<CreatedShareToken, { kind: "pairing" }> }) {
  const { created } = props;
  return (
    <>
      <p>
        <strong>Shown once.</strong> On the TV, open <code>/tv/pair</code> and type this code. It works once,
        and expires at {created.expiresAt.toLocaleTimeString()} ({formatExpiry(created.expiresAt, Date.now())}
        ).
      </p>
      <p className={styles.code}>{created.code}</p>
    </>
  );
}
