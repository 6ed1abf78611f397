// Temporary: the search tools and search/ still read these from here; this goes once they call a search client.
export { toEntryListing, toEntryView } from "./clients/entry-views.js";
export { entryTitle, entryUri } from "./entry-titles.js";
