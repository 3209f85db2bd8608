"""A skill's stored plan and the code made from it: what a plan is (plan), the JSON the
store keeps (plan_data), the skill module generated from it (codegen, partial) and the
plain Playwright script exported from it (export).

Harvesting writes plans; running a stored skill makes its module from its plan again, so
this package sits below both the harvester and the skills' runtime."""
