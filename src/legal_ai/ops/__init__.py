"""Running the office's server (an interface, DESIGN.md §2): the worker loop that drains every job
kind (worker.py), the scheduler and its jobs (scheduler.py, tasks.py), and the health report
with the scheduler's part (health.py)."""
