"""Page observation: mmid annotation, the distilled DOM and element descriptions, and the
readers of get_dom's text (page_content, page_lines).

The page library (library) annotates and distills a page in one evaluation; every document
of a session holds it from its start, so a read sends only its arguments; get_dom and
find_elements run it through the task's session (browser.observe, browser.find). Nothing
here imports a browser session."""
