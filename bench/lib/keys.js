// API keys for the benches: a keys file the server reads (CONTEXT_HUB_API_KEYS_FILE), one key per principal.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateApiKey } from "@context-hub/common";

/** `tenants` × `perTenant` principals with read and write scopes, each with a key and a marker word unique to it. */
export function createPrincipals(tenants, perTenant) {
  const principals = [];
  for (let t = 0; t < tenants; t++) {
    for (let p = 0; p < perTenant; p++) {
      const name = `t${t}p${p}`;
      // A marker that is one word to every tokenizer: letters only, so full text and grep find it whole.
      const marker = `hubmark${name}${Math.random()
        .toString(36)
        .replace(/[^a-z]/g, "")
        .slice(0, 8)}x`;
      principals.push({
        name,
        tenant: `tenant${t}`,
        subject: `agent${p}`,
        groups: ["eng"],
        scopes: ["context:read", "context:write"],
        key: generateApiKey(),
        marker,
      });
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "context-hub-bench-keys-"));
  const path = join(dir, "keys.json");
  writeFileSync(
    path,
    JSON.stringify({
      keys: principals.map(({ key, tenant, subject, groups, scopes }) => ({ key, tenant, subject, groups, scopes })),
    }),
  );
  return { principals, path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The environment that turns API-key authentication on and rate limits off, for load runs. */
export function benchEnv(keysPath) {
  return {
    CONTEXT_HUB_AUTH: "api-key",
    CONTEXT_HUB_API_KEYS_FILE: keysPath,
    CONTEXT_HUB_RATE_READ_PER_MIN: "0",
    CONTEXT_HUB_RATE_WRITE_PER_MIN: "0",
  };
}
