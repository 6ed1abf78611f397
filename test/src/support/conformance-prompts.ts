import { createHash } from "node:crypto";
import { callOk, connectMcpClient } from "./mcp.js";

/** A 1×1 PNG: the image of the prompt that carries one. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/**
 * Stores, through the hub's own tools as an ordinary user would, the prompts
 * the MCP conformance suite gets by name: prompt entries with the names,
 * arguments, image and linked file its prompt scenarios ask for. The
 * scenarios then exercise the hub's real prompt features (owner-given
 * names, argument filling, images as image content, linked files as
 * embedded resources); nothing in the hub knows these names.
 */
export async function storeConformancePrompts(url: string): Promise<void> {
  const client = await connectMcpClient(url);
  try {
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
  } finally {
    await client.close();
  }
}
