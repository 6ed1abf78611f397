import { parseArgs } from "node:util";
import { withStore } from "./store-connection.js";

export const auditUsage = `Usage: context-hub audit verify [--tenant <t>] [--json]

  Recomputes the audit log's hash chain of one tenant (or of every tenant) and
  reports the first record that does not match: a changed record, a removed or
  inserted one, or a broken link. Exits 1 when a chain is broken.
`;

/** `context-hub audit …`; returns the process exit code (1 when a chain is broken). */
export async function runAuditCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "verify") {
    out(auditUsage);
    return action === undefined || action === "help" ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: { tenant: { type: "string" }, json: { type: "boolean" } },
    strict: true,
  });
  const reply = await withStore(env, (store) => store.audit.verifyAuditLog({ tenant: values.tenant ?? "" }));
  const broken = reply.tenants.filter((report) => !report.intact);
  if (values.json) {
    out(
      `${JSON.stringify(
        reply.tenants.map((report) => ({
          tenant: report.tenant,
          records: Number(report.records),
          intact: report.intact,
          ...(report.intact
            ? {}
            : { broken_seq: Number(report.brokenSeq), broken_id: report.brokenId, problem: report.problem }),
        })),
        null,
        2,
      )}\n`,
    );
  } else if (reply.tenants.length === 0) {
    out("The audit log is empty.\n");
  } else {
    for (const report of reply.tenants) {
      out(
        report.intact
          ? report.records === 0n
            ? `${report.tenant}: no audit records\n`
            : `${report.tenant}: ${report.records} record(s), chain intact\n`
          : `${report.tenant}: BROKEN at record ${report.brokenSeq} (id ${report.brokenId}): ${report.problem}; ${report.records} record(s) before it verified\n`,
      );
    }
  }
  return broken.length > 0 ? 1 : 0;
}
