import { z } from "zod";
import { envOptionalString, loadConfig } from "@context-hub/common";

/**
 * Variables the `context-hub` command reads itself. `context-hub start` also
 * passes the whole environment to the five services it runs, so their
 * variables apply there too (docs/configuration.md says where it differs).
 */
export const cliEnvVariables = z.object({
  CONTEXT_HUB_TOKEN: envOptionalString().describe(
    "The API key or OIDC token `context-hub smoke` and `context-hub bridge` send as a bearer credential (kept out of the process list, unlike `--token`).",
  ),
});

export type CliConfig = z.infer<typeof cliEnvVariables>;

/** The command's own settings from the environment; throws listing every bad variable. */
export function loadCliConfig(env: NodeJS.ProcessEnv): CliConfig {
  return loadConfig(cliEnvVariables, env);
}
