"""The command line: the `browser-agent` group and its commands, and what they share
(one-line errors, `--json` output, progress, completion, the terminal).

The group, its global options and the order of its commands are in :mod:`~.app`; each
command (or group of commands) with its printing sits in a module named for it
(``harvest``, ``skills``, ``watch``, ``db``, ...). This is the top layer: the stages' own
packages never import it."""
