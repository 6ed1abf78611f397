#!/usr/bin/env node
// The context-hub command; the build (npm install runs it) puts the program in packages/cli/dist.
import "../packages/cli/dist/main.js";
