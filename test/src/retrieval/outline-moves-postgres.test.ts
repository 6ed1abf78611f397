import { postgresBackend } from "../support/hub-backends.js";
import { defineOutlineMoveSuite } from "./outline-moves-suite.js";

defineOutlineMoveSuite(postgresBackend);
