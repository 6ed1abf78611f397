import { z } from "zod";
import { defineTool, readOnlyTool } from "../tool-definition.js";

const featureStatus = z
  .enum(["on", "off", "unavailable"])
  .describe(
    "on: configured and answering; off: turned off in this deployment; unavailable: configured but not answering now.",
  );

const whoamiOutput = z.object({
  tenant: z.string(),
  subject: z.string(),
  groups: z.array(z.string()),
  scopes: z.array(z.string()),
  features: z.object({
    summaries: z.object({ status: featureStatus, provider: z.string().nullable(), model: z.string().nullable() }),
    semantic_search: z.object({
      status: featureStatus,
      provider: z.string().nullable(),
      model: z.string().nullable(),
      dimension: z.number().nullable(),
    }),
    reranking: z.object({ status: featureStatus, provider: z.string().nullable(), model: z.string().nullable() }),
    vector_backend: z.string(),
    full_text_index: z.string(),
  }),
});

export const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description: [
    "Show who you are to Context Hub — your tenant (organisation), subject, groups and scopes — and what this deployment has on:",
    "summaries, semantic search (the embedding model), reranking, the vector backend and the full-text index.",
    "Use it to understand why an entry is or is not visible to you, or which tools your scopes allow.",
  ].join(" "),
  inputSchema: z.object({}).strict(),
  outputSchema: whoamiOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(_args, { principal, clients }) {
    return {
      tenant: principal.tenant,
      subject: principal.subject,
      groups: principal.groups,
      scopes: principal.scopes,
      features: await clients.features.describe(),
    };
  },
});
