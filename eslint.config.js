// Lint rules the house style relies on; `npm run lint` runs them with Prettier's check.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "proto/src/gen/**",
      "bin/**",
      "**/*.js",
      "**/*.mjs",
      "!bench/**/*.js",
      "!scripts/**/*.js",
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite", "before", "after"] },
          ],
        },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/switch-exhaustiveness-check": "error",
    },
  },
  {
    // Functions stay short enough to read at once: a production function has at most 80 lines of code (blank lines and
    // comments aside); a longer one is split by concern into functions or modules named for what they do. Tests,
    // test helpers and generated code are exempt, and so are applied migrations: they are frozen records of the schema.
    files: ["**/src/**/*.ts"],
    ignores: [
      "**/*.test.ts",
      "test/**",
      "**/src/testing/**",
      "proto/src/gen/**",
      "services/store/src/db/migrations/**",
    ],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Gateway layers: MCP tools and search orchestration → domain clients (clients/) → proto. Tools speak the domain;
    // proto stays behind the clients. Search's unit tests fake the peers' gRPC clients, so they may build proto messages.
    files: ["services/gateway/src/mcp/**/*.ts", "services/gateway/src/search/**/*.ts"],
    ignores: ["services/gateway/src/search/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@context-hub/proto",
              message: "MCP and search code do not use proto: call a domain client in services/gateway/src/clients/.",
            },
          ],
        },
      ],
    },
  },
  {
    // Authentication decides before any MCP processing and must not depend on it.
    files: ["services/gateway/src/auth/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/mcp/*", "**/mcp/**"],
              message: "auth/ does not import from mcp/: move what both need to a neutral module.",
            },
          ],
        },
      ],
    },
  },
  {
    // Benchmarks and build scripts are plain ES modules run by Node: its globals, and the core rules that catch undefined names.
    files: ["bench/**/*.js", "scripts/**/*.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.node } },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
    },
  },
);
