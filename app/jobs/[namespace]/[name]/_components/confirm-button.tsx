"use client";

import { type ReactNode, useRef } from "react";

/** A button whose action runs only after the user confirms it in a modal dialog. */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ReactNode;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        type="button"
        className={`button ${props.danger ? "button-danger" : "button-secondary"}`}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} className="confirm" aria-label={props.title}>
        <h2>{props.title}</h2>
        <div>{props.children}</div>
        <form method="dialog" className="actions">
          <button type="submit" className="button button-secondary">
            Cancel
          </button>
          <button
            type="button"
            className={`button ${props.danger ? "button-danger" : ""}`}
            onClick={() => {
              dialog.current?.close();
              props.onConfirm();
            }}
          >
            Confirm
          </button>
        </form>
      </dialog>
    </>
  );
}
