"""The command line: the `browser-agent` group and its commands, and what they share
(one-line errors, `--json` output, progress, completion, the terminal).

The group, its global options and the order of its commands are in :mod:`~.app`; each
command with its printing sits in a module named for it, the bigger stages' commands in
their own packages (``harvest.cli``, ``watch.cli``, ...)."""
