/**
 * `reason`: a question answered from the library with every statement cited.
 * Hybrid search finds the best entries and their best passages under the
 * caller's access (the evidence); the summarizer's provider answers from the
 * evidence alone (extractive with the built-in provider, a chat model's
 * words under instructions that forbid uncited claims otherwise); then every
 * citation is checked against the evidence here, whoever wrote it.
 */
import { answerLimits } from "@context-hub/common";
import { checkCitations, type EvidencePassage } from "../../search/cited-answer.js";
import { timed } from "../../search/search-legs.js";
import type { HybridHit } from "../../search/hybrid-search.js";
import { reasonInput, reasonLimits, reasonOutput } from "../reason-schemas.js";
import { defineTool, readOnlyTool } from "../tool-definition.js";
import { bestEntriesWithPassages, entryFields } from "./library-search-tools.js";
import { sharedFilterNote } from "./search-tools.js";

export const reasonTool = defineTool({
  name: "reason",
  title: "Answer with citations",
  description: [
    "Answers a question from what the library holds: hybrid search reads the best entries' best passages, and the answer is built from them alone.",
    "Every statement cites passages ([n] → entry id, outline node_id, character range and the quoted words, with their own range); citations that do not hold against the evidence are dropped and listed, and gaps name what the evidence does not cover.",
    "With the built-in provider the statements are the evidence's own best sentences; with a chat model configured for summaries, the model writes them.",
    "Read a citation in context with read_context_range (start, end).",
    sharedFilterNote,
  ].join(" "),
  inputSchema: reasonInput,
  outputSchema: reasonOutput,
  annotations: readOnlyTool,
  scope: "context:read",
  async handler(args, { principal, clients }) {
    const { found, passages, warnings } = await bestEntriesWithPassages(
      clients.search,
      principal,
      "reason",
      { ...args, query: args.question },
      {
        entries: args.entries ?? reasonLimits.defaultEntries,
        perEntry: args.passages_per_entry ?? reasonLimits.defaultPassagesPerEntry,
        maxChars: answerLimits.passageChars,
      },
    );
    // The evidence: each entry's passages in rank order, leaving out those the reranker found nothing of the question in.
    const sources: { hit: HybridHit; passage: EvidencePassage }[] = found.hits
      .flatMap((hit) =>
        (passages.get(hit.entry.id) ?? [])
          .filter((passage) => passage.score !== 0)
          .map((passage) => ({
            hit,
            passage: {
              entryId: hit.entry.id,
              nodeId: passage.nodeId,
              start: passage.start,
              end: passage.end,
              text: passage.text,
            },
          })),
      )
      .slice(0, answerLimits.passages);
    const evidence = sources.map((source) => source.passage);
    const maxStatements = args.max_statements ?? answerLimits.defaultStatements;
    const provided =
      evidence.length === 0
        ? undefined
        : await timed("reason", "answer", () =>
            clients.answers.answer(
              args.question,
              evidence.map((passage) => passage.text),
              maxStatements,
            ),
          );
    const checked = checkCitations(provided ?? { statements: [], gaps: [] }, evidence);
    const citations = checked.citations.map((citation) => {
      const source = sources[citation.passage - 1]!;
      return {
        ...entryFields(source.hit),
        number: citation.number,
        node_id: source.passage.nodeId,
        start: source.passage.start,
        end: source.passage.end,
        text: citation.quote,
        quote_start: citation.quoteStart,
        quote_end: citation.quoteEnd,
      };
    });
    const statements = checked.statements.map((statement) => {
      // A statement is fenced as data of the entry its first citation quotes: it is made of that evidence.
      const first = citations[(statement.citations[0] ?? 1) - 1]!;
      const { id, thread_id, kind, title, trust_state } = first;
      return { id, thread_id, kind, title, trust_state, text: statement.text, citations: statement.citations };
    });
    const gaps = evidence.length === 0 ? ["Nothing the caller may read matches the question."] : (provided?.gaps ?? []);
    return {
      statements,
      citations,
      gaps,
      dropped: checked.dropped,
      evidence_passages: evidence.length,
      entries_read: found.hits.length,
      provider: {
        name: provided?.provider ?? "none",
        model: provided?.model ?? "",
        synthesised: provided?.synthesised ?? false,
      },
      warnings,
    };
  },
});
