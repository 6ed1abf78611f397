/** A JSON value as entry metadata holds it: what the domain clients take and return, whatever the wire carries it as. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object as entry metadata holds it. */
export interface JsonObject {
  [key: string]: JsonValue;
}
