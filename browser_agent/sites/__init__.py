"""The site boundary: which addresses a run may open (policy, with its allow_list, and a
run's default boundary), ports refused up front, and per-request tokens kept out of
addresses (request_tokens)."""
