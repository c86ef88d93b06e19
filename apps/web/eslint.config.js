// ESLint (flat config) for the web client and its node tests. Run from the repository
// root: `make lint-web` (eslint -c apps/web/eslint.config.js apps/web tests/web/js).
// The page's modules run in the browser; core/theme.js is a classic script (it must apply
// the theme before the first paint); the tests under tests/web/js run in node.

import path from "node:path";
import { fileURLToPath } from "node:url";

import js from "@eslint/js";
import globals from "globals";

const WEB = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(WEB, "../..");

const HTML_SINKS = "It builds HTML from text; make nodes with core/dom.js so text stays text.";

export default [
  { basePath: WEB, ignores: ["node_modules/", "vendor/"] },
  js.configs.recommended,
  {
    basePath: WEB,
    files: ["js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.browser, Prism: "readonly", katex: "readonly" },
    },
  },
  {
    basePath: WEB,
    files: ["js/core/theme.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    basePath: WEB,
    files: ["eslint.config.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: globals.node },
  },
  {
    basePath: ROOT,
    files: ["tests/web/js/**/*.mjs"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: globals.node },
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "eqeqeq": ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-shadow": "error",
      "no-implicit-globals": "error",
      "no-restricted-properties": ["error",
        { property: "innerHTML", message: HTML_SINKS },
        { property: "outerHTML", message: HTML_SINKS },
        { property: "insertAdjacentHTML", message: HTML_SINKS },
        { object: "document", property: "write", message: HTML_SINKS },
      ],
      "no-restricted-syntax": ["error",
        { selector: "CallExpression[callee.object.name='Prism'][callee.property.name=/^highlight/]",
          message: "Prism's highlight functions build HTML strings: tokenize only (text/highlight.js)." },
        { selector: "MemberExpression[property.name='renderToString']",
          message: "KaTeX's renderToString builds an HTML string: katex.render() builds elements." },
      ],
    },
  },
];
