import { memoryBackend } from "../support/hub-backends.js";
import { defineLongTextSuite } from "./long-texts-suite.js";

defineLongTextSuite(memoryBackend);
