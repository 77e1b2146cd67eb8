import { expect, test, trpcMutation, trpcQuery } from "./fixtures/trpc";

type TeamRow = { name: string };

test("health endpoint reports the database", async ({ request }) => {
  const response = await request.get("/api/healthz");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: "ok", database: "ok" });
});

test("a wrong input type gets a 400 naming the field, and nothing is written", async ({ adminRequest }) => {
  const before = await trpcQuery<TeamRow[]>(adminRequest, "teams.list");
  const response = await trpcMutation(adminRequest, "teams.create", {
    name: "e2e-bad-input",
    displayName: "E2E",
    guaranteedGpus: "eight",
  });
  expect(response.status()).toBe(400);
  const body = (await response.json()) as {
    error: { json: { message: string; data: { zodError: unknown } } };
  };
  expect(body.error.json.message).toMatch(/^guaranteedGpus: .*expected number/);
  expect(body.error.json.data.zodError).toMatchObject({
    fieldErrors: { guaranteedGpus: [expect.any(String)] },
  });
  const after = await trpcQuery<TeamRow[]>(adminRequest, "teams.list");
  expect(after.map((team) => team.name)).toEqual(before.map((team) => team.name));
});

test("mutations need a signed-in user with the right role", async ({ request }) => {
  const anonymous = await trpcMutation(request, "teams.create", {
    name: "e2e-anon",
    displayName: "X",
    guaranteedGpus: 1,
  });
  expect(anonymous.status()).toBe(401);
  const signIn = await trpcMutation(request, "auth.signIn", {
    email: "viewer@rebound.local",
    password: "rebound-demo",
  });
  expect(signIn.status()).toBe(200);
  const viewer = await trpcMutation(request, "teams.create", {
    name: "e2e-viewer",
    displayName: "X",
    guaranteedGpus: 1,
  });
  expect(viewer.status()).toBe(403);
  const teams = await trpcQuery<TeamRow[]>(request, "teams.list");
  expect(teams.map((team) => team.name)).not.toContain("e2e-viewer");
});
