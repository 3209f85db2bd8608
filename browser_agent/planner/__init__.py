"""The planner (System 2): agent loop, prompts, routing to skills, run records."""
