import { memoryBackend } from "../support/hub-backends.js";
import { defineOutlineMoveSuite } from "./outline-moves-suite.js";

defineOutlineMoveSuite(memoryBackend);
