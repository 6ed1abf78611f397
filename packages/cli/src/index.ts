export { startAllInOne, type AllInOne, type AllInOneOptions } from "./all-in-one.js";
