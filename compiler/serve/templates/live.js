// pillbox serve: follow the server's events and swap in the page of each new state of the pack.
"use strict";
(() => {
  const shown = () => document.querySelector('meta[name="pillbox-generation"]')?.content;
  let fetching = false;
  let wanted = null;
  async function refresh() {
    if (fetching) return;
    fetching = true;
    try {
      while (wanted !== null && wanted !== shown()) {
        const target = wanted;
        const response = await fetch(location.pathname, { cache: "no-store" });
        if (!response.ok) { location.reload(); return; }
        const next = new DOMParser().parseFromString(await response.text(), "text/html");
        const generation = next.querySelector('meta[name="pillbox-generation"]');
        document.title = next.title;
        // The styles hold the face frames' size; the body is the pack; the head keeps this script.
        document.head.querySelectorAll("style").forEach((style) => style.remove());
        next.head.querySelectorAll("style").forEach((style) => document.head.append(style));
        document.querySelector('meta[name="pillbox-generation"]').content =
          generation ? generation.content : target;
        document.body.replaceWith(document.adoptNode(next.body));
      }
    } catch (error) {
      setTimeout(refresh, 500);  // the server is busy or restarting: try again
    } finally {
      fetching = false;
    }
  }
  const events = new EventSource("/events");
  events.addEventListener("update", (event) => { wanted = event.data; refresh(); });
})();
