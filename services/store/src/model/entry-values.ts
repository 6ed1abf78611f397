/** The plain values an entry is made of, shared by the entry model and the filters over entries. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type Source = "user" | "agent";
export type Visibility = "private" | "shared" | "tenant";
export type ContentType = "text" | "multimodal";
