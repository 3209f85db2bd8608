"""Time to route a command against harvested skills' templates, by command length.

Routes commands of about 1 kB, 10 kB and 100 kB against a set of skills (the demo shop's
shapes plus many others), three kinds each: one that matches with a long value, one that
would match but holds another clause, one that matches no template. Prints the best of
several timings per kind and length (the least disturbed by other work on the machine)
and the ratio of the 100 kB time to the 1 kB time: about 100 means linear in the
command's length. No browser, no store. Run:
    .venv/bin/python scripts/bench_route.py [--repeat 5] [--skills 50]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from browser_agent.planner.router import route
from browser_agent.store.models import Skill

SIZES = (1_000, 10_000, 100_000)
SHAPES = [
    "open {link_name}",
    "search for {search_term} and sort by {sort_by}",
    "add {product} in size {size}, quantity {quantity} to the cart",
    "log in as {username} with password {password}",
    "accept the cookies",
    "send {message} to support",
]
WORDS = "road shoes with a grippy sole, light and waterproof for the trail "


def skills(count: int) -> list[Skill]:
    """The demo shop's shapes, then generated ones up to ``count`` skills."""
    templates = SHAPES + [
        f"find {{item_{i}}} in department {i} and filter by {{filter_{i}}}"
        for i in range(max(0, count - len(SHAPES)))
    ]
    return [
        Skill(
            name=f"skill_{i}",
            module_path="",
            shape=template,
            status="healthy",
            command_templates=json.dumps([template]),
        )
        for i, template in enumerate(templates)
    ]


def filler(size: int) -> str:
    """About ``size`` characters of product words."""
    return (WORDS * (size // len(WORDS) + 1))[:size].strip()


def commands(size: int) -> dict[str, str]:
    """A command of each kind, about ``size`` characters long."""
    text = filler(size)
    return {
        "matches": f"search for {text} and sort by price",
        "another clause": f"open {text} and then check out",
        "no template": f"compare {text} with the cheapest",
    }


def best_ms(call: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        timings.append(time.perf_counter() - started)
    return min(timings) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skills", type=int, default=50)
    options = parser.parse_args()
    known = skills(options.skills)
    kinds = list(commands(SIZES[0]))
    print(f"{len(known)} skills, best of {options.repeat} runs, milliseconds")
    print(f"{'command':>16} " + " ".join(f"{size // 1000:>7} kB" for size in SIZES) + "  ratio")
    for kind in kinds:
        times = []
        for size in SIZES:
            command = commands(size)[kind]
            found = route(command, known)
            assert (found is not None) == (kind == "matches"), kind
            times.append(best_ms(lambda command=command: route(command, known), options.repeat))
        ratio = times[-1] / times[0] if times[0] else float("inf")
        cells = " ".join(f"{t:10.1f}" for t in times)
        print(f"{kind:>16} {cells}  {ratio:5.0f}x (length x{SIZES[-1] // SIZES[0]})")


if __name__ == "__main__":
    main()
