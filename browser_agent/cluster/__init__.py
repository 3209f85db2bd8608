"""Many jobs at once: ``browser-agent batch`` and ``validate --all`` on browser slots in one
process, or on a Dask cluster (a local one, or a scheduler with workers on other machines).

Each job runs in a fresh browser context and its result is written to the store once,
under its job id (:mod:`browser_agent.cluster.jobs`).
"""
