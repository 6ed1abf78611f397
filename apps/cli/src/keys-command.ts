import { parseArgs } from "node:util";
import { apiKeyHint, generateApiKey, hashApiKey } from "@context-hub/common";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { storeV1 } from "@context-hub/proto";
import { withStore } from "./store-connection.js";

const knownScopes = ["context:read", "context:write", "context:review", "context:admin"];

export const keysUsage = `Usage: context-hub keys <create|list|revoke> [options]

  keys create --tenant <t> --subject <s> [--groups a,b] [--scopes context:read,context:write]
              [--expires <ISO date>] [--description <text>]
      Creates an API key and prints it once; only its hash is stored.
  keys list [--tenant <t>] [--include-revoked] [--json]
  keys revoke <id or hint>
      Takes effect on every gateway within CONTEXT_HUB_KEY_CACHE_MS (5 s by default).

Keys live in the database the store uses (DATABASE_URL, or PGlite in STORE_DATA_DIR),
so these commands work whether or not the server is running.
`;

const splitList = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

function describeKey(key: storeV1.ApiKey): string {
  const expires = key.expiresAt === undefined ? "never" : timestampDate(key.expiresAt).toISOString();
  const revoked = key.revokedAt === undefined ? "" : `  revoked ${timestampDate(key.revokedAt).toISOString()}`;
  return `${key.id}  ${key.hint}…  tenant=${key.tenant} subject=${key.subject} groups=[${key.groups.join(",")}] scopes=[${key.scopes.join(",")}] expires=${expires}${revoked}${key.description ? `  "${key.description}"` : ""}`;
}

/** `context-hub keys …`; returns the process exit code. */
export async function runKeysCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case "create":
      return createKey(rest, env, out);
    case "list":
      return listKeys(rest, env, out);
    case "revoke":
      return revokeKey(rest, env, out);
    case undefined:
    case "help":
      out(keysUsage);
      return 0;
    default:
      out(keysUsage);
      return 2;
  }
}

/** `keys create …`: the new key goes to `out`, once; what was stored to stderr. */
async function createKey(rest: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const request = parseCreateArgs(rest);
  const key = generateApiKey();
  const reply = await withStore(env, (store) =>
    store.apiKeys.createApiKey({
      keyHash: hashApiKey(key),
      key: {
        hint: apiKeyHint(key),
        ...request,
      },
    }),
  );
  out(`${key}\n`);
  process.stderr.write(
    `Created ${reply.key === undefined ? "" : describeKey(reply.key)}\nThis is the only time the key is shown; store it in a secret manager.\n`,
  );
  return 0;
}

/** The options of `keys create`, checked: every problem is named at once. */
function parseCreateArgs(rest: string[]) {
  const { values } = parseArgs({
    args: rest,
    options: {
      tenant: { type: "string" },
      subject: { type: "string" },
      groups: { type: "string" },
      scopes: { type: "string" },
      expires: { type: "string" },
      description: { type: "string" },
    },
    strict: true,
  });
  const problems: string[] = [];
  if (!values.tenant) problems.push("--tenant is required");
  if (!values.subject) problems.push("--subject is required");
  const scopes = values.scopes === undefined ? ["context:read", "context:write"] : splitList(values.scopes);
  for (const scope of scopes)
    if (!knownScopes.includes(scope)) problems.push(`unknown scope "${scope}" (known: ${knownScopes.join(", ")})`);
  const expires = values.expires === undefined ? undefined : new Date(values.expires);
  if (expires !== undefined && Number.isNaN(expires.getTime()))
    problems.push(`--expires "${values.expires}" is not a date`);
  if (expires !== undefined && expires.getTime() <= Date.now()) problems.push("--expires must be in the future");
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return {
    tenant: values.tenant!,
    subject: values.subject!,
    groups: splitList(values.groups),
    scopes,
    description: values.description ?? "",
    ...(expires === undefined ? {} : { expiresAt: timestampFromDate(expires) }),
  };
}

/** `keys list …`: one line a key, or JSON with `--json`. */
async function listKeys(rest: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { tenant: { type: "string" }, "include-revoked": { type: "boolean" }, json: { type: "boolean" } },
    strict: true,
  });
  const reply = await withStore(env, (store) =>
    store.apiKeys.listApiKeys({ tenant: values.tenant ?? "", includeRevoked: values["include-revoked"] ?? false }),
  );
  if (values.json) {
    out(`${JSON.stringify(reply.keys.map(keyJson), null, 2)}\n`);
  } else {
    out(reply.keys.length === 0 ? "No API keys.\n" : `${reply.keys.map(describeKey).join("\n")}\n`);
  }
  return 0;
}

/** A key as `keys list --json` prints it. */
function keyJson(key: storeV1.ApiKey) {
  return {
    id: key.id,
    hint: key.hint,
    tenant: key.tenant,
    subject: key.subject,
    groups: key.groups,
    scopes: key.scopes,
    description: key.description,
    expires_at: key.expiresAt === undefined ? null : timestampDate(key.expiresAt).toISOString(),
    created_at: key.createdAt === undefined ? null : timestampDate(key.createdAt).toISOString(),
    revoked_at: key.revokedAt === undefined ? null : timestampDate(key.revokedAt).toISOString(),
  };
}

/** `keys revoke <id or hint>`. */
async function revokeKey(rest: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new Error("give exactly one key id or hint to revoke");
  const reply = await withStore(env, (store) => store.apiKeys.revokeApiKey({ id: positionals[0]! }));
  out(`Revoked ${reply.key === undefined ? positionals[0] : describeKey(reply.key)}\n`);
  return 0;
}
