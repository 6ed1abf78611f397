import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callOk, connectMcpClient } from "./mcp.js";

/** A 1×1 PNG: the image of the prompt that carries one, and the binary resource's bytes. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/**
 * Stores, through the hub's own tools as an ordinary user would, what the MCP
 * conformance suite asks for by name: prompt entries with the names,
 * arguments, image and linked file its prompt scenarios get, and entries
 * published under the URIs its resource scenarios read (a text, an image, a
 * template). The scenarios then exercise the hub's real features
 * (owner-given prompt names, argument filling, images as image content,
 * linked files as embedded resources, published URIs and templates); nothing
 * in the hub knows these names.
 */
export async function storeConformanceFixtures(url: string): Promise<void> {
  const client = await connectMcpClient(url);
  try {
    await storePrompts(client);
    await publishResources(client);
  } finally {
    await client.close();
  }
}

/** The prompts the suite's prompt scenarios get by name. */
async function storePrompts(client: Client): Promise<void> {
  const notes = "Reference notes for the prompt that embeds a file.\n";
  const sha256 = createHash("sha256").update(notes).digest("hex");
  await callOk(client, "put_artifact", {
    data: Buffer.from(notes).toString("base64"),
    sha256,
    media_type: "text/plain",
    filename: "reference-notes.txt",
  });
  const prompts = [
    { prompt_name: "test_simple_prompt", text: "This is a simple prompt for testing." },
    {
      prompt_name: "test_prompt_with_arguments",
      text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'",
      prompt_arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
    },
    {
      prompt_name: "test_prompt_with_embedded_resource",
      text: "Here is the resource you asked about ({{resourceUri}}), with the notes it links.",
      prompt_arguments: [{ name: "resourceUri", description: "The resource to talk about", required: true }],
      artifacts: [sha256],
    },
    {
      prompt_name: "test_prompt_with_image",
      text: "Here is a test image.",
      images: [{ data: onePixelPng, mime_type: "image/png" }],
    },
  ];
  for (const prompt of prompts)
    await callOk(client, "store_context", {
      thread_id: "conformance-prompts",
      source: "user",
      kind: "prompt",
      ...prompt,
    });
}

/** The resources the suite's resource scenarios read: a text, an image and a template, each published by its user. */
async function publishResources(client: Client): Promise<void> {
  const store = async (text: string, extra: Record<string, unknown> = {}) =>
    (
      await callOk<{ context_id: string }>(client, "store_context", {
        thread_id: "conformance-resources",
        source: "user",
        kind: "document",
        text,
        ...extra,
      })
    ).context_id;
  const text = await store("This is the content of the static text resource.");
  await callOk(client, "publish_resource", { uri: "test://static-text", id: text });
  const picture = await store("A one-pixel picture.", { images: [{ data: onePixelPng, mime_type: "image/png" }] });
  await callOk(client, "publish_resource", { uri: "test://static-binary", id: picture, image: 0 });
  const report = await store("Data for item {{id}}: the template's value fills this placeholder.");
  await callOk(client, "publish_resource", { uri: "test://template/{id}/data", id: report });
}
