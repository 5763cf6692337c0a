// pillbox serve: follow the server's events and swap in the page of each new state of the pack.
"use strict";
(() => {
  const shown = () => Number(document.querySelector('meta[name="pillbox-generation"]')?.content);
  let fetching = false;
  let wanted = 0;
  async function refresh() {
    if (fetching) return;
    fetching = true;
    try {
      while (shown() < wanted) {  // a page fetched may be newer than the event that asked
        const target = wanted;
        const response = await fetch(location.pathname, { cache: "no-store" });
        // A card renamed away has no page any more: its pack's page shows where it went.
        if (response.status === 404) { location.assign("/"); return; }
        if (!response.ok) throw new Error(`${response.status}`);
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
  events.addEventListener("update", (event) => {
    wanted = Number(event.data);
    if (wanted < shown()) location.reload();  // a new server, counting from 1 again
    else refresh();
  });
})();
