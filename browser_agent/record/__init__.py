"""Teaching by showing: what a person does in the browser, recorded as a run to harvest.

``record_session`` (session) records a page or a context; ``save_recording`` (save)
writes the recording as a run; ``browser-agent record`` (:mod:`browser_agent.cli.record`)
does both in a window.
"""
