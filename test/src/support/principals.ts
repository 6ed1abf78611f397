import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateApiKey } from "@context-hub/common";

export interface TestPrincipal {
  name: string;
  key: string;
  tenant: string;
  subject: string;
  groups: string[];
  scopes: string[];
}

/** Writes an API keys file for the given principals; dispose removes it. */
export function writeKeysFile(principals: Omit<TestPrincipal, "key">[]): {
  path: string;
  principals: Record<string, TestPrincipal>;
  dispose(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "context-hub-keys-"));
  const withKeys = principals.map((principal) => ({ ...principal, key: generateApiKey() }));
  const path = join(dir, "keys.json");
  writeFileSync(
    path,
    JSON.stringify({
      keys: withKeys.map(({ key, tenant, subject, groups, scopes }) => ({ key, tenant, subject, groups, scopes })),
    }),
  );
  return {
    path,
    principals: Object.fromEntries(withKeys.map((principal) => [principal.name, principal])),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const readWrite = ["context:read", "context:write"];
