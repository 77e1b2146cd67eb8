/**
 * "When was this token last used", for the admin list: "never", "just now", then minutes, hours and days
 * ago. Pure: `now` is passed in.
 */
export function formatLastUsed(at: Date | null, now: number): string {
  if (at === null) return "never";
  const seconds = Math.max(0, Math.round((now - at.getTime()) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** How long until a pairing code expires: "in 9 min", "in 40 s", or "expired". */
export function formatExpiry(at: Date, now: number): string {
  const seconds = Math.round((at.getTime() - now) / 1000);
  if (seconds <= 0) return "expired";
  if (seconds < 60) return `in ${seconds} s`;
  return `in ${Math.ceil(seconds / 60)} min`;
}
