"""Seed a fresh Trac environment: tickets and users (run with the Trac virtualenv's python).

python trac_seed.py ENV_DIR TICKETS_JSON
"""

import json
import sys

from trac.env import Environment
from trac.ticket.model import Ticket

env = Environment(sys.argv[1])
for summary, description, owner in json.loads(sys.argv[2]):
    ticket = Ticket(env)
    ticket.populate(
        {"summary": summary, "description": description, "reporter": "admin", "owner": owner,
         "status": "new", "type": "defect", "priority": "major"}
    )  # fmt: skip
    ticket.insert()
