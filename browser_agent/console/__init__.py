"""The web console (`browser-agent serve`): start, watch and answer runs in a browser."""
