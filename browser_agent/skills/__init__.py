"""Skills the agent can call: primitives (hand-written) and harvested (generated)."""
