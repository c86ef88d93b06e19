// Light/dark theme. Loaded as a classic script in <head> so the chosen theme applies before
// the first paint; remembers an explicit choice in localStorage ("pantheon.theme"), else
// follows the system. The toggle button is wired by the app (window.pantheonTheme).
(function theme() {
  const KEY = "pantheon.theme";
  const root = document.documentElement;
  const media = window.matchMedia("(prefers-color-scheme: dark)");

  function stored() {
    try {
      const value = localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch {
      return null;
    }
  }

  function current() {
    return stored() ?? (media.matches ? "dark" : "light");
  }

  function apply() {
    root.dataset.theme = current();
  }

  function toggle() {
    const next = current() === "dark" ? "light" : "dark";
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // storage disabled: the choice lasts for this page
    }
    root.dataset.theme = next;
    return next;
  }

  media.addEventListener("change", apply);
  apply();
  window.pantheonTheme = { current, toggle };
})();
