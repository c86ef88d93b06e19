// The CSRF double submit (docs/adr/0040): a page signed in by cookie repeats the readable
// `pantheon_csrf` cookie in `X-CSRF-Token` on every request that is not GET, HEAD or
// OPTIONS; the server refuses such a cookie request without it (403). Pure: node's tests
// import it.

export const CSRF_COOKIE = "pantheon_csrf";
export const CSRF_HEADER = "X-CSRF-Token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The value of cookie `name` in a `document.cookie` string, or "" when it is not set. */
export function cookieValue(cookies, name) {
  for (const part of (cookies || "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

/** The headers a request with `method` needs given the page's cookies: {} or the token. */
export function csrfHeaders(method, cookies) {
  if (SAFE_METHODS.has(String(method || "GET").toUpperCase())) return {};
  const token = cookieValue(cookies, CSRF_COOKIE);
  return token ? { [CSRF_HEADER]: token } : {};
}

/** True when this browser holds a sign-in cookie session (its CSRF cookie is readable). */
export function signedInByCookie(cookies) {
  return cookieValue(cookies, CSRF_COOKIE) !== "";
}
