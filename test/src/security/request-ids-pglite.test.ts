import { memoryBackend } from "../support/hub-backends.js";
import { defineRequestIdTests } from "./request-ids-suite.js";

defineRequestIdTests(memoryBackend);
