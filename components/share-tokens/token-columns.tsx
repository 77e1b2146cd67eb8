import type { Column } from "@/components/ui/data-table";
import { TV_VIEW_TITLES } from "@/server/domain/access/share";
import type { ShareTokenView } from "@/server/services/share-tokens/share-tokens.schema";
import { formatExpiry, formatLastUsed } from "./last-used";
import { RevokeButton } from "./revoke-button";

function status(token: ShareTokenView, now: number) {
  switch (token.state) {
    case "active":
      return <span className="badge badge-ok">active</span>;
    case "revoked":
      return <span className="badge badge-bad">revoked {token.revokedAt?.toLocaleString()}</span>;
    case "pairing":
      return (
        <span className="badge badge-warn">
          pairing code expires {token.pairingExpiresAt ? formatExpiry(token.pairingExpiresAt, now) : ""}
        </span>
      );
    case "pairing-expired":
      return <span className="badge badge-bad">pairing code expired</span>;
    default:
      return token.state satisfies never;
  }
}

/** The admin list's columns; `now` for relative times. */
export function tokenColumns(now: number): ReadonlyArray<Column<ShareTokenView>> {
  return [
    { id: "label", header: "Label", cell: (token) => token.label },
    { id: "views", header: "Views", cell: (token) => token.views.map((v) => TV_VIEW_TITLES[v]).join(", ") },
    {
      id: "teams",
      header: "Teams",
      cell: (token) => (token.allTeams ? "All teams" : token.teams.map((team) => team.name).join(", ")),
    },
    {
      id: "created",
      header: "Created",
      cell: (token) => `${token.createdAt.toLocaleString()} by ${token.createdBy?.name ?? "a removed user"}`,
    },
    { id: "lastUsed", header: "Last used", cell: (token) => formatLastUsed(token.lastUsedAt, now) },
    { id: "status", header: "Status", cell: (token) => status(token, now) },
    {
      id: "actions",
      header: "Actions",
      cell: (token) =>
        token.state === "revoked" ? null : <RevokeButton id={token.id} label={token.label} />,
    },
  ];
}
