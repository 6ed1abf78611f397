import { postgresBackend } from "../support/hub-backends.js";
import { defineRequestIdTests } from "./request-ids-suite.js";

defineRequestIdTests(postgresBackend);
