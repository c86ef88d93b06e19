// The CSRF double submit on the page's side (apps/web/js/core/csrf.js): every write of a
// page signed in by cookie carries X-CSRF-Token = the pantheon_csrf cookie; reads do not.

import assert from "node:assert/strict";
import { test } from "node:test";

import { cookieValue, csrfHeaders, signedInByCookie } from "../../../apps/web/js/core/csrf.js";

const COOKIES = "pantheon.theme=dark; pantheon_csrf=abc%2Bdef=; other=1";

test("cookieValue finds a cookie among others and decodes it", () => {
  assert.equal(cookieValue(COOKIES, "pantheon_csrf"), "abc+def=");
  assert.equal(cookieValue(COOKIES, "other"), "1");
  assert.equal(cookieValue(COOKIES, "missing"), "");
  assert.equal(cookieValue("", "pantheon_csrf"), "");
  assert.equal(cookieValue(undefined, "pantheon_csrf"), "");
});

test("a cookie whose name only ends like the CSRF cookie's is not it", () => {
  assert.equal(cookieValue("xpantheon_csrf=nope", "pantheon_csrf"), "");
});

test("every method but GET, HEAD and OPTIONS carries the token", () => {
  for (const method of ["POST", "PUT", "PATCH", "DELETE", "post"]) {
    assert.deepEqual(csrfHeaders(method, COOKIES), { "X-CSRF-Token": "abc+def=" }, method);
  }
  for (const method of ["GET", "HEAD", "OPTIONS", "get", undefined]) {
    assert.deepEqual(csrfHeaders(method, COOKIES), {}, String(method));
  }
});

test("without the cookie (an API key, or local mode) no header is sent", () => {
  assert.deepEqual(csrfHeaders("POST", "pantheon.theme=dark"), {});
  assert.equal(signedInByCookie("pantheon.theme=dark"), false);
  assert.equal(signedInByCookie(COOKIES), true);
});
