/**
 * Moving through an entry's heading outline from one node: to its parent,
 * its subsections, its previous or next sibling, or all its siblings. The
 * outline is the one `buildOutline` lists (node ids from `parseOutline`), so
 * every node a move returns can be moved from again.
 */
import { invalidArgument } from "@context-hub/common";
import { parseOutline, type OutlineSection } from "@context-hub/text";
import type { NodeSummary } from "../model/entry-model.js";
import {
  countChildren,
  noSuchNode,
  parentOf,
  toOutlinePage,
  wholeOutline,
  type Outline,
  type OutlinePage,
} from "./navigation.js";

export const outlineMoves = ["parent", "children", "previous", "next", "siblings"] as const;

/** Where a move goes from a node: its parent, its direct subsections, the sibling before or after it, or every other sibling. */
export type OutlineMove = (typeof outlineMoves)[number];

/** One move through an outline: from the node `nodeId`, in the direction `move`. */
export interface OutlineStep {
  nodeId: string;
  move: OutlineMove;
}

/** The sections a move reaches, in document order, and why there are none when there are none. */
export interface MoveTargets {
  targets: OutlineSection[];
  note: string;
}

function quoted(nodeId: string): string {
  return JSON.stringify(nodeId.slice(0, 200));
}

/** Where a node's siblings sit, for a note: at the top level, or under their parent. */
function placeOf(parentId: string): string {
  return parentId === "" ? "at the top level" : `under ${quoted(parentId)}`;
}

/**
 * The move a navigate request asks for, or undefined when it asks for the
 * outline itself. A move needs the node to move from and a node needs a
 * move; `maxDepth` only bounds a listing of the whole outline, so a move
 * with it is refused rather than left to silently ignore it.
 */
export function toOutlineStep(request: {
  nodeId?: string | undefined;
  move?: OutlineMove | undefined;
  maxDepth: number;
}): OutlineStep | undefined {
  const { nodeId, move } = request;
  const hasNode = nodeId !== undefined && nodeId !== "";
  if (move === undefined && !hasNode) return undefined;
  if (move === undefined)
    throw invalidArgument(
      `node_id ${quoted(nodeId ?? "")} needs a move: one of ${outlineMoves.join(", ")}`,
      "leave node_id out to list the whole outline",
    );
  if (!hasNode)
    throw invalidArgument(
      `move "${move}" needs node_id: the outline node to move from`,
      "list the entry's node ids with navigate_context",
    );
  if (request.maxDepth > 0)
    throw invalidArgument(
      `max_depth bounds a listing of the whole outline, not a move (got max_depth ${request.maxDepth} with move "${move}")`,
      "leave max_depth out when moving from a node",
    );
  return { nodeId, move };
}

const nowhere = (note: string): MoveTargets => ({ targets: [], note });

/**
 * The sections `step` reaches in `sections` (an outline in document order).
 * A move past the root, the first or the last sibling, or to subsections a
 * node does not have, reaches nothing and says why in `note`: it is a fact
 * about the outline, not a mistake in the call. A node id the outline does
 * not have is INVALID_ARGUMENT naming it.
 */
export function selectMove(sections: readonly OutlineSection[], step: OutlineStep): MoveTargets {
  const origin = sections.find((section) => section.nodeId === step.nodeId);
  if (origin === undefined) throw noSuchNode(step.nodeId);
  const parentId = parentOf(origin.nodeId);
  const name = quoted(origin.nodeId);
  switch (step.move) {
    case "parent": {
      if (parentId === "") return nowhere(`${name} is a top-level section: it has no parent`);
      const parent = sections.find((section) => section.nodeId === parentId);
      // parseOutline names a subsection after an open section, so its parent is always in the outline.
      return parent === undefined ? nowhere(`${name} has no parent section`) : { targets: [parent], note: "" };
    }
    case "children": {
      const children = sections.filter((section) => parentOf(section.nodeId) === origin.nodeId);
      return children.length > 0 ? { targets: children, note: "" } : nowhere(`${name} has no subsections`);
    }
    case "previous":
    case "next":
    case "siblings": {
      const family = sections.filter((section) => parentOf(section.nodeId) === parentId);
      const at = family.indexOf(origin);
      if (step.move === "siblings") {
        const others = family.filter((section) => section !== origin);
        return others.length > 0
          ? { targets: others, note: "" }
          : nowhere(`${name} is the only section ${placeOf(parentId)}`);
      }
      const target = family[step.move === "previous" ? at - 1 : at + 1];
      if (target !== undefined) return { targets: [target], note: "" };
      return nowhere(`${name} is the ${step.move === "previous" ? "first" : "last"} section ${placeOf(parentId)}`);
    }
  }
}

/**
 * A page of the nodes one move through the outline of `text` reaches, as
 * `buildOutline` shows them (lines, parent, child count, stored summary);
 * `totalNodes` counts every node the move reaches, and `note` says why it
 * reached none. See `selectMove` for the moves and their errors.
 */
export function moveInOutline(
  text: string,
  summaries: readonly NodeSummary[],
  step: OutlineStep,
  page: OutlinePage = wholeOutline,
): Outline {
  const sections = parseOutline(text);
  const { targets, note } = selectMove(sections, step);
  return { ...toOutlinePage(text, summaries, targets, countChildren(sections), page), note };
}
