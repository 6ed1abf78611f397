import { parseArgs } from "node:util";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { withStore } from "./store-connection.js";

export const purgeUsage = `Usage: context-hub purge --older-than <days> [--dry-run]

  Erases the kept versions (texts, metadata, tags, summaries) of entries deleted
  at least <days> days ago. Their tombstones stay (id, thread, content hash, owner,
  who deleted them, when and why), so storing the same text again is still flagged.
  --dry-run counts what would be erased and erases nothing. Each purge is audited.
`;

/** `context-hub purge …`; returns the process exit code. */
export async function runPurgeCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { "older-than": { type: "string" }, "dry-run": { type: "boolean" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    out(purgeUsage);
    return 0;
  }
  const raw = values["older-than"];
  if (raw === undefined) throw new Error(`--older-than <days> is required\n\n${purgeUsage}`);
  if (!/^\d{1,5}$/.test(raw)) throw new Error(`--older-than must be a whole number of days (got "${raw}")`);
  const dryRun = values["dry-run"] ?? false;
  const reply = await withStore(env, (store) => store.history.purgeHistory({ olderThanDays: Number(raw), dryRun }));
  const cutoff = reply.cutoff === undefined ? "?" : timestampDate(reply.cutoff).toISOString();
  out(
    dryRun
      ? `Would erase ${reply.versions} kept version(s) of ${reply.entries} entry(ies) deleted before ${cutoff}. Nothing was erased (--dry-run).\n`
      : `Erased ${reply.versions} kept version(s) of ${reply.entries} entry(ies) deleted before ${cutoff}.\n`,
  );
  return 0;
}
