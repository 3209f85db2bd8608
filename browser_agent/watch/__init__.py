"""Watches: a command checked on a schedule, through its skill when it has one; what each
check found is kept, a change is said once, and a condition stops the watch or tells a hook."""
