import { resolveIdempotency } from "../../idempotency.js";
import {
  listPublishedResourcesInput,
  listPublishedResourcesOutput,
  publishResourceInput,
  publishResourceOutput,
  unpublishResourceInput,
  unpublishResourceOutput,
} from "../publication-schemas.js";
import { additiveTool, defineTool, destructiveTool, readOnlyTool } from "../tool-definition.js";

const servedPart = (publication: { serves: string; image: number | null; artifact: string | null }) =>
  publication.serves === "image"
    ? `image ${publication.image}`
    : publication.serves === "artifact"
      ? `linked file ${publication.artifact}`
      : "text";

export const publishResourceTool = defineTool({
  name: "publish_resource",
  title: "Publish an entry under a URI",
  description: [
    "Give an entry you can read (its text, one image, or one file it links) a URI of your choosing, e.g. docs://handbook/on-call, so resources/read finds it by that stable name across its versions.",
    "A URI template such as report://{team}/weekly serves an entry's text for every URI that matches, each {{team}} placeholder filled in. Publications are yours alone: others read the entry at context-hub://entries/{id} as ever, and nothing you publish opens an entry to anyone.",
  ].join(" "),
  inputSchema: publishResourceInput,
  outputSchema: publishResourceOutput,
  annotations: additiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const idempotency = await resolveIdempotency(peers, principal, "publish_resource", args);
    const { publication, replaced } = await clients.publications.publish(principal, {
      uri: args.uri,
      entryId: args.id.toLowerCase(),
      imageOrdinal: args.image,
      artifactSha256: args.artifact,
      description: args.description ?? "",
      idempotency,
    });
    return {
      publication,
      replaced,
      message: `${replaced ? "Moved" : "Published"} ${publication.template ? "the template " : ""}${publication.uri} to the ${servedPart(publication)} of entry ${publication.id}.`,
    };
  },
});

export const unpublishResourceTool = defineTool({
  name: "unpublish_resource",
  title: "Unpublish a URI",
  description:
    "Take back a URI (or template) you published; the entry itself stays, at context-hub://entries/{id} and anywhere else you published it.",
  inputSchema: unpublishResourceInput,
  outputSchema: unpublishResourceOutput,
  annotations: destructiveTool,
  scope: "context:write",
  async handler(args, { principal, peers, clients }) {
    const idempotency = await resolveIdempotency(peers, principal, "unpublish_resource", args);
    const publication = await clients.publications.unpublish(principal, { uri: args.uri, idempotency });
    return { success: true, publication, message: `Unpublished ${publication.uri}; entry ${publication.id} stays.` };
  },
});

export const listPublishedResourcesTool = defineTool({
  name: "list_published_resources",
  title: "List your published URIs",
  description:
    "List the URIs and templates you published, by URI, with what each serves. One whose entry you can no longer read (deleted, hidden, quarantined) or whose image or file is gone is left out. Page with next_cursor.",
  inputSchema: listPublishedResourcesInput,
  outputSchema: listPublishedResourcesOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const page = await clients.publications.list(principal, {
      templatesOnly: args.templates_only ?? false,
      limit: args.limit ?? 0,
      cursor: args.cursor ?? "",
    });
    return {
      publications: page.publications,
      count: page.publications.length,
      has_more: page.nextCursor !== "",
      next_cursor: page.nextCursor === "" ? null : page.nextCursor,
    };
  },
});

/** The publication tools, in the order tools/list shows them. */
export const publicationTools = [publishResourceTool, unpublishResourceTool, listPublishedResourcesTool] as const;
