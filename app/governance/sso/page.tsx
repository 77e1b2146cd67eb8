import { GroupMappingsAdmin } from "@/components/sso/group-mappings-admin";

export default function SsoPage() {
  return (
    <>
      <h1>Single sign-on</h1>
      <p className="muted">
        Which identity-provider groups get which roles. Applied at every sign-in: a member's roles from these
        mappings are set to what their groups give then, so a group taken away removes its access at the next
        sign-in. Memberships made by hand are left alone.
      </p>
      <GroupMappingsAdmin />
    </>
  );
}
