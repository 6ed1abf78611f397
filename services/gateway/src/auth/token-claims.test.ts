import { test } from "node:test";
import assert from "node:assert/strict";
import { principalFromClaims, readClaim, type ClaimMapping } from "./token-claims.js";

const mapping: ClaimMapping = { tenant: { claim: "org" }, groupsClaim: "groups", scopesClaim: undefined };

test("tenant, subject, groups and Context Hub scopes come from the claims; other scopes are ignored", () => {
  const outcome = principalFromClaims(
    { org: "acme", sub: "dora", groups: ["eng", "eng", "ops"], scope: "openid profile context:read context:write" },
    mapping,
  );
  assert.deepEqual(outcome, {
    ok: true,
    principal: { tenant: "acme", subject: "dora", groups: ["eng", "ops"], scopes: ["context:read", "context:write"] },
  });
});

test("scp as an array is read when there is no scope claim; a configured claim replaces both", () => {
  const fromScp = principalFromClaims({ org: "acme", sub: "d", scp: ["context:read"] }, mapping);
  assert.deepEqual(fromScp.ok && fromScp.principal.scopes, ["context:read"]);
  const custom = principalFromClaims(
    { org: "acme", sub: "d", scope: "context:admin", permissions: ["context:write"] },
    { ...mapping, scopesClaim: "permissions" },
  );
  assert.deepEqual(custom.ok && custom.principal.scopes, ["context:write"]);
});

test("a fixed tenant needs no claim; a missing or unusable tenant claim refuses the token", () => {
  const fixed = principalFromClaims({ sub: "d" }, { ...mapping, tenant: { fixed: "acme" } });
  assert.equal(fixed.ok && fixed.principal.tenant, "acme");
  for (const org of [undefined, "", 42, ["acme"], "x".repeat(257)]) {
    const outcome = principalFromClaims({ org, sub: "d" }, mapping);
    assert.equal(outcome.ok, false, `org ${JSON.stringify(org)}`);
    assert.match(!outcome.ok ? outcome.description : "", /"org" claim naming the tenant/);
  }
  const noSubject = principalFromClaims({ org: "acme" }, mapping);
  assert.match(!noSubject.ok ? noSubject.description : "", /"sub"/);
});

test("claims are found by exact name first (Auth0 namespaced claims), then by dotted path (Keycloak)", () => {
  const claims = { "https://example.com/tenant": "acme", realm_access: { roles: ["eng"] } };
  assert.equal(readClaim(claims, "https://example.com/tenant"), "acme");
  assert.deepEqual(readClaim(claims, "realm_access.roles"), ["eng"]);
  assert.equal(readClaim(claims, "realm_access.missing"), undefined);
  const outcome = principalFromClaims(
    { ...claims, sub: "d" },
    { tenant: { claim: "https://example.com/tenant" }, groupsClaim: "realm_access.roles", scopesClaim: undefined },
  );
  assert.deepEqual(outcome.ok && [outcome.principal.tenant, outcome.principal.groups], ["acme", ["eng"]]);
});

test("a single group string is one group; too many groups refuse the token", () => {
  const one = principalFromClaims({ org: "a", sub: "d", groups: "eng team" }, mapping);
  assert.deepEqual(one.ok && one.principal.groups, ["eng team"]);
  const many = principalFromClaims(
    { org: "a", sub: "d", groups: Array.from({ length: 101 }, (_, i) => `g${i}`) },
    mapping,
  );
  assert.equal(many.ok, false);
});

test("a token whose subject is the audit log's operator name is refused", () => {
  for (const sub of ["operator", "Operator", "operator\u200b"]) {
    const outcome = principalFromClaims({ org: "acme", sub, scope: "context:read" }, mapping);
    assert.equal(outcome.ok, false, JSON.stringify(sub));
    assert.match(
      !outcome.ok ? outcome.description : "",
      /The access token.s "sub" claim "[Oo]perator.*" is reserved: the audit log records operator actions under that name/,
    );
  }
});
