#!/usr/bin/env node
// The context-hub command; the build (npm install runs it) puts the program in apps/cli/dist.
import "../apps/cli/dist/main.js";
