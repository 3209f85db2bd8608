"""The person's decisions on the agent's actions, as feedback to improve it."""
