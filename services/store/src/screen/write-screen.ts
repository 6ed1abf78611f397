import { createWorkerPool, isInlineText } from "@context-hub/common";
import { screenEntry, type ScreenField, type ScreenFinding, type ScreenInput } from "./instruction-screen.js";

/** The screen's findings for each field it was given (fields not given are absent). */
export type FieldScreens = Partial<Record<ScreenField, ScreenFinding[]>>;

/** What the screen's worker module does, by task name. */
export interface WriteScreenTasks {
  screen(input: ScreenInput): FieldScreens;
  screenParts(parts: NamedParts): NamedFindings;
}

/**
 * The parts of a workflow record (a memory's value, a handoff's summary, a
 * session event's payload…), each named by the caller and screened on its
 * own as an entry's text, tags or metadata is.
 */
export type NamedParts = Record<string, ScreenInput>;

/** Each named part's findings, in field order. */
export type NamedFindings = Record<string, ScreenFinding[]>;

/** `screenEntry` of each named part on its own. */
export function screenNamedParts(parts: NamedParts): NamedFindings {
  const found: NamedFindings = {};
  for (const [name, input] of Object.entries(parts)) found[name] = screenEntry(input);
  return found;
}

/** The strings the screen reads of an input, for the inline-or-worker choice (metadata by its JSON length). */
function stringsOf(input: ScreenInput): string[] {
  return [
    input.text ?? "",
    input.metadata === undefined ? "" : JSON.stringify(input.metadata),
    ...(input.tags ?? []),
    input.title ?? "",
    ...(input.promptArguments ?? []).map((argument) => argument.description ?? ""),
  ];
}

/** `screenEntry` of each given field on its own: concatenated in field order, they are `screenEntry` of them all. */
export function screenFields(input: ScreenInput): FieldScreens {
  const screens: FieldScreens = {};
  if (input.text !== undefined) screens.text = screenEntry({ text: input.text });
  if (input.metadata !== undefined) screens.metadata = screenEntry({ metadata: input.metadata });
  if (input.tags !== undefined) screens.tags = screenEntry({ tags: input.tags });
  if (input.title !== undefined) screens.title = screenEntry({ title: input.title });
  if (input.promptArguments !== undefined) screens.arguments = screenEntry({ promptArguments: input.promptArguments });
  return screens;
}

/** Every finding of `screens`, in field order (as `screenEntry` gives them). */
export function allFindings(screens: FieldScreens): ScreenFinding[] {
  return [
    ...(screens.text ?? []),
    ...(screens.metadata ?? []),
    ...(screens.tags ?? []),
    ...(screens.title ?? []),
    ...(screens.arguments ?? []),
  ];
}

/**
 * The write-time screen as the store runs it: before a write's transaction
 * opens, short entries on the calling thread, longer ones in a worker thread
 * under a time budget. A screen over budget fails the write with
 * TEXT_BUDGET_EXCEEDED (stage "screen") before anything is written.
 */
export interface WriteScreen {
  screen(input: ScreenInput): Promise<FieldScreens>;
  /**
   * Screens every part of one workflow write in one go: inline when they are
   * short together, else in one worker job under one budget, as one entry is.
   */
  screenParts(parts: NamedParts): Promise<NamedFindings>;
  /** Starts a worker ahead of the first long entry, so that entry does not wait for one to start. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface WriteScreenOptions {
  /** Most worker threads at once. */
  workers: number;
  /** Most milliseconds one entry's screen may take in its worker. */
  budgetMs: number;
}

/** The screen on a pool of worker threads running write-screen-worker.js. */
export function createWriteScreen(options: WriteScreenOptions): WriteScreen {
  const pool = createWorkerPool({
    name: "store-screen",
    script: new URL("./write-screen-worker.js", import.meta.url),
    maxWorkers: options.workers,
    maxOldGenerationSizeMb: 512,
  });
  return {
    async screen(input) {
      // Metadata is bounded in size; its JSON length stands in for the strings the screen reads from it.
      if (isInlineText(stringsOf(input))) return screenFields(input);
      return pool.run<FieldScreens>("screen", input, {
        stage: "screen",
        budgetMs: options.budgetMs,
        budgetSetting: "STORE_TEXT_BUDGET_MS",
      });
    },
    async screenParts(parts) {
      if (isInlineText(Object.values(parts).flatMap(stringsOf))) return screenNamedParts(parts);
      return pool.run<NamedFindings>("screenParts", parts, {
        stage: "screen",
        budgetMs: options.budgetMs,
        budgetSetting: "STORE_TEXT_BUDGET_MS",
      });
    },
    warm: () => pool.warm(),
    close: () => pool.close(),
  };
}
