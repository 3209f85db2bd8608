"""An editor that saves in place: "Publish" sends the post by script and leaves the
editor on screen, its fields still holding what was typed. The final page shows the
command's values only in fields, so a fresh load of its address decides: the application
gives them back when it kept them, and an editor that was never sent loads empty. Real
Chromium, the editor served on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser_agent.browser.session import BrowserSession
from browser_agent.skills.end_state import end_state
from browser_agent.skills.primitive import open_url

# The editor: a title field and a rich-text body; the server gives every new editor an
# id of its own (the address says it at once), and fills the fields of a kept post by
# script a while after the page's load, as a script-built editor does.
EDITOR = """<!doctype html><html lang="en"><head><title>Edit post</title></head><body>
<h1>Edit post</h1>
<label>Title <input id="title" name="title"></label>
<div id="body" contenteditable="true" role="textbox" aria-label="Body"
     style="min-height:3em;border:1px solid #999"></div>
<button id="publish">Publish</button>
<script>
const id = %(id)d;
history.replaceState(null, "", "/post/" + id + "/edit");
setTimeout(async () => {
  const kept = await (await fetch("/api/posts/" + id)).json();
  if (kept.title) document.getElementById("title").value = kept.title;
  if (kept.body) document.getElementById("body").textContent = kept.body;
}, 400);
document.getElementById("publish").onclick = async () => {
  await fetch("/api/posts/" + id, {method: "POST", body: JSON.stringify({
    title: document.getElementById("title").value,
    body: document.getElementById("body").textContent})});
};
</script></body></html>"""


class Editor:
    """The editor application on 127.0.0.1: ``posts`` what it kept, by id."""

    def __init__(self) -> None:
        self.posts: dict[int, dict[str, str]] = {}
        self.next_id = 1
        editor = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, body: str, kind: str = "text/html") -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/post/new":
                    editor.next_id += 1
                    self._send(EDITOR % {"id": editor.next_id - 1})
                elif found := re.fullmatch(r"/post/(\d+)/edit", self.path):
                    self._send(EDITOR % {"id": int(found[1])})
                elif found := re.fullmatch(r"/api/posts/(\d+)", self.path):
                    kept = editor.posts.get(int(found[1]), {})
                    self._send(json.dumps(kept), "application/json")
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                found = re.fullmatch(r"/api/posts/(\d+)", self.path)
                length = int(self.headers.get("Content-Length") or 0)
                if found is None:
                    self.send_error(404)
                    return
                editor.posts[int(found[1])] = json.loads(self.rfile.read(length) or b"{}")
                self._send("{}", "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def editor() -> Iterator[Editor]:
    served = Editor()
    yield served
    served.close()


COMMAND = 'publish a post titled "Heron count" with the text "Nine herons by the weir."'
VALUES = ["Heron count", "Nine herons by the weir."]


async def _typed(editor: Editor, page_session: BrowserSession) -> None:
    await open_url(f"{editor.url}/post/new")
    page = page_session.current_page()
    await page.fill("#title", VALUES[0])
    await page.click("#body")
    await page.keyboard.type(VALUES[1])


async def test_an_editor_that_saved_in_place_shows_the_post_done(
    editor: Editor, page_session: BrowserSession
) -> None:
    await _typed(editor, page_session)
    page = page_session.current_page()
    async with page.expect_response(lambda r: r.request.method == "POST"):
        await page.click("#publish")
    assert editor.posts == {1: {"title": VALUES[0], "body": VALUES[1]}}
    done = await end_state(page, VALUES, command=COMMAND)
    assert done.shown, done.said()
    assert page_session.current_page() is page  # the run stays on its page


async def test_an_editor_never_sent_is_not_done(
    editor: Editor, page_session: BrowserSession
) -> None:
    await _typed(editor, page_session)
    page = page_session.current_page()
    assert page.url.endswith("/post/1/edit")  # an address of its own, nothing kept yet
    not_done = await end_state(page, VALUES, command=COMMAND)
    assert not not_done.shown
    assert "only in a form's field: it was not saved" in not_done.said()
    assert editor.posts == {}
