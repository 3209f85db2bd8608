"""Time to route a command against harvested skills' templates, by command length.

Routes commands of about 1 kB, 10 kB and 100 kB against a set of skills (the demo shop's
shapes plus many others), three kinds each: one that matches with a long value, one that
would match but holds another clause, one that matches no template. Prints the best of
several timings per kind and length (the least disturbed by other work on the machine)
and the ratio of the 100 kB time to the 1 kB time: about 100 means linear in the
command's length. No browser, no store. Run:
    .venv/bin/python scripts/bench_route.py [--repeat 5] [--skills 50]

With ``--scale``, routes short commands against 1,000, 3,000 and 10,000 skills instead and
prints the CPU time of indexing them (once, when the skills are read) and of one route
(best of --repeat), with the ratio of the 10,000 figure to the 1,000 one: about 1 means
a route costs no more for more skills that do not share the command's words.
    .venv/bin/python scripts/bench_route.py --scale [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial

from browser_agent.planner.route_index import index_of
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
            routable=True,
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


def best_ms(
    call: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    timings = []
    for _ in range(repeat):
        started = clock()
        call()
        timings.append(clock() - started)
    return min(timings) * 1000


SCALES = (1_000, 3_000, 10_000)
SHORT = {
    "shop search": "search for trail shoes and sort by price low to high",
    "one of many": "find boots in department 777 and filter by size",
    "no template": "compare road shoes with the cheapest",
}


def scale(repeat: int) -> None:
    """CPU per route at 1k, 3k and 10k skills, and of indexing them once."""
    print(f"CPU milliseconds, best of {repeat} routes; indexing once per set of skills")
    print(f"{'command':>16} " + " ".join(f"{n:>9,}" for n in SCALES) + "  ratio")
    known = {n: skills(n) for n in SCALES}
    indexing = []
    for n in SCALES:
        started = time.process_time()
        index_of(known[n])
        indexing.append((time.process_time() - started) * 1000)
    print(f"{'indexing':>16} " + " ".join(f"{t:9.1f}" for t in indexing))
    for kind, command in SHORT.items():
        times = []
        for n in SCALES:
            found = route(command, known[n])
            assert (found is not None) == (kind != "no template"), kind
            call = partial(route, command, known[n])
            times.append(best_ms(call, repeat, time.process_time))
        ratio = times[-1] / times[0] if times[0] else float("inf")
        cells = " ".join(f"{t:9.2f}" for t in times)
        print(f"{kind:>16} {cells}  {ratio:5.1f}x (skills x{SCALES[-1] // SCALES[0]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--scale", action="store_true", help="route at 1k, 3k and 10k skills")
    options = parser.parse_args()
    if options.scale:
        scale(max(options.repeat, 20))
        return
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
