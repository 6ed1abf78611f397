import { z } from "zod";
import { entryLimits, promptArgumentNamePattern, promptNamePattern } from "@context-hub/common";

/** One argument a prompt entry declares; the store holds it to the same bounds. */
const promptArgumentSchema = z
  .object({
    name: z
      .string()
      .max(
        entryLimits.promptArgumentNameChars,
        `an argument name is at most ${entryLimits.promptArgumentNameChars} characters`,
      )
      .regex(
        promptArgumentNamePattern,
        `an argument name is a letter or "_", then up to ${entryLimits.promptArgumentNameChars - 1} letters, digits or "_"`,
      )
      .describe("The name its placeholder {{name}} uses in the text."),
    description: z
      .string()
      .max(
        entryLimits.promptArgumentDescriptionChars,
        `an argument's description must be at most ${entryLimits.promptArgumentDescriptionChars} characters`,
      )
      .refine((value) => !value.includes("\u0000"), "an argument's description must not contain NUL characters")
      .optional(),
    required: z.boolean().optional().describe("Whether prompts/get must be given it (default false)."),
  })
  .strict();

/** The arguments a prompt entry declares: unique names, at most 20. */
export const promptArgumentsSchema = z
  .array(promptArgumentSchema)
  .max(entryLimits.promptArguments, `at most ${entryLimits.promptArguments} prompt arguments`)
  .refine(
    (list) => new Set(list.map((argument) => argument.name)).size === list.length,
    "prompt argument names must be unique",
  );

const promptNameRule = `a prompt name is a letter or "_", then up to ${entryLimits.promptNameChars - 1} letters, digits, "_", "." or "-"`;
const promptNameLength = `a prompt name is at most ${entryLimits.promptNameChars} characters`;

/** A prompt's name: what prompts/get takes for it. The store holds it to the same rule, and refuses one of an entry id's form. */
export const promptNameSchema = z
  .string()
  .max(entryLimits.promptNameChars, promptNameLength)
  .regex(promptNamePattern, promptNameRule);

/** A prompt's name as an update gives it: a name, or "" for none. */
export const promptNameChangeSchema = z
  .string()
  .max(entryLimits.promptNameChars, promptNameLength)
  .regex(new RegExp(`^(?:${promptNamePattern.source.slice(1, -1)})?$`), `${promptNameRule} ("" removes it)`);
