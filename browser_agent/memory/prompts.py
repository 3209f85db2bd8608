"""Prompts of the memory, kept as text files in the package; a folder in the settings
(``memory_prompts_dir``) may override any of them by file name."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path


@dataclass(frozen=True)
class Prompts:
    """Loads prompts/<name>.txt, from the override folder first when one is set."""

    folder: Path | None = None

    def text(self, name: str) -> str:
        """The template text of one prompt."""
        if self.folder is not None and (self.folder / f"{name}.txt").is_file():
            return (self.folder / f"{name}.txt").read_text(encoding="utf-8").strip()
        package = resources.files("browser_agent.memory").joinpath(f"prompts/{name}.txt")
        return package.read_text(encoding="utf-8").strip()

    def render(self, name: str, **values: object) -> str:
        """One prompt with its ``{placeholders}`` filled in."""
        return self.text(name).format(**values)
