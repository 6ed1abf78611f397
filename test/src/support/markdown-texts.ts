/** One heading section of an outlined text, as the store's outline names and spans it. */
export interface OutlineSection {
  nodeId: string;
  heading: string;
  level: number;
  /** The headings from the outermost to this one. */
  path: string[];
  /** UTF-16 offsets into the text, end exclusive; a section runs to the next heading of its level or higher. */
  start: number;
  end: number;
}

const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** A paragraph of at least `minChars` characters about `subject`, mentioning `topic`. */
function paragraph(subject: string, topic: string, minChars: number): string {
  const sentences: string[] = [];
  for (let index = 1; sentences.join(" ").length < minChars; index++) {
    sentences.push(
      `Observation ${index} on ${subject.toLowerCase()}: the ${topic} readings stayed within the expected band and the crew logged them by hand.`,
    );
  }
  return sentences.join(" ");
}

/**
 * A Markdown report: a level-1 title over level-2 sections (headings of
 * letters and spaces), each section's paragraph at least `sectionChars`
 * long, so that every section is long enough for a node summary when
 * SUMMARIZER_SECTION_MIN_CHARS is at most `sectionChars`. Returns the text and
 * its outline, title first.
 */
export function outlinedReport(
  title: string,
  headings: readonly string[],
  topic: string,
  sectionChars = 450,
): { text: string; outline: OutlineSection[] } {
  let text = `# ${title}\n\n${paragraph(title, topic, sectionChars)}\n`;
  const starts: number[] = [];
  for (const heading of headings) {
    starts.push(text.length + 1);
    text += `\n## ${heading}\n\n${paragraph(heading, topic, sectionChars)}\n`;
  }
  const root = slug(title);
  const outline: OutlineSection[] = [
    { nodeId: root, heading: title, level: 1, path: [title], start: 0, end: text.length },
  ];
  headings.forEach((heading, index) => {
    outline.push({
      nodeId: `${root}/${slug(heading)}`,
      heading,
      level: 2,
      path: [title, heading],
      start: starts[index]!,
      end: starts[index + 1] ?? text.length,
    });
  });
  return { text, outline };
}
