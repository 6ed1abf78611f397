// Lint rules the house style relies on; `npm run lint` runs them with Prettier's check.
import tseslint from "typescript-eslint";

export default tseslint.config({ ignores: ["**/dist/**", "**/node_modules/**", "proto/src/gen/**", "bench/**", "scripts/**", "bin/**", "**/*.js", "**/*.mjs"] }, ...tseslint.configs.recommended, {
  files: ["**/*.ts"],
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: {
    "@typescript-eslint/no-floating-promises": ["error", { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "describe", "it", "suite", "before", "after"] }] }],
    "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
  },
});
